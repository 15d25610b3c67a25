package dev.ddpkit.ddp.transport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.net.SocketFactory;
import org.java_websocket.exceptions.WebsocketNotConnectedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Java-WebSocket client wrapped as a {@link Transport}, and the tracking of its socket and
 * its two threads (see {@link WebSocketTransportFactory} for how they are named).
 */
final class WebSocketTransport implements Transport {
  // Logged under the factory's name, as before this class was split out of it.
  private static final Logger log = LoggerFactory.getLogger(WebSocketTransportFactory.class);

  private final WebSocketTransportClient client;
  private final String threadName;
  /** Counted down by the read thread in its last lines. */
  final CountDownLatch ended = new CountDownLatch(1);
  /** Guards the socket, the closed flag, and the client's deferred close. */
  final Object lock = new Object();
  private Socket socket; // guarded by lock
  private boolean closed; // guarded by lock
  private ThreadGroup group; // this connection's threads; set once by start()
  private volatile Thread writer; // the library's write thread, once renamed

  WebSocketTransport(
      URI uri,
      TransportListener listener,
      SocketFactory base,
      int maxFrameBytes,
      Duration timeout,
      String threadName) {
    this.threadName = threadName;
    int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
    this.client =
        new WebSocketTransportClient(
            this, uri, new Utf8TextDraft(maxFrameBytes), millis, listener);
    client.setConnectionLostTimeout(0);
    client.setDaemon(true);
    client.setTcpNoDelay(true);
    client.setSocketFactory(new TrackingSocketFactory(base));
  }

  /**
   * Runs what {@code WebSocketClient.connect()} would start, on a named thread of a group of its
   * own (see {@link WebSocketTransportFactory}): the write thread the library starts from it joins that group.
   */
  @SuppressWarnings("removal") // ThreadGroup.setDaemon: see below
  void start() {
    group = new ThreadGroup(threadName + "-ws");
    // On Java 17 a thread group stays referenced by its parent until destroyed; a daemon group is
    // destroyed when its last thread ends, so one per connection does not accumulate. (From
    // Java 19 groups are weakly referenced and the flag is ignored.)
    group.setDaemon(true);
    Thread reader = new Thread(group, client, threadName + "-ws-read");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * On the read thread, at {@code onOpen}: names the write thread. It named itself before it
   * wrote the handshake request that the server has now answered, so the name given here stays.
   */
  void nameWriter() {
    Thread[] threads = new Thread[4];
    int n = group.enumerate(threads, /* recurse= */ false);
    for (int i = 0; i < n; i++) {
      Thread t = threads[i];
      if (t != Thread.currentThread() && t.getName().startsWith("WebSocketWriteThread")) {
        t.setName(threadName + "-ws-write");
        writer = t;
      }
    }
  }

  @Override
  public void send(String text) {
    try {
      if (client.isOpen()) {
        client.send(text);
      }
    } catch (WebsocketNotConnectedException e) {
      log.debug("frame dropped: the socket closed meanwhile");
    }
  }

  @Override
  public void close(int code, String reason) {
    Socket s;
    synchronized (lock) {
      closed = true;
      s = socket;
    }
    try {
      if (client.isOpen() && code >= 1000 && code != 1006) {
        client.close(code, reason); // queues the close frame
      }
      // Do not wait for the peer's close frame: a half-open peer never sends it. This interrupts
      // the write thread, which flushes the queued close frame and closes the socket, which ends
      // the read thread.
      client.closeConnection(code, reason);
    } catch (RuntimeException e) {
      log.debug("error while closing", e);
    }
    if (s != null && !client.isOpen()) {
      // Still dialing, in the handshake, or a writer stuck on a peer that stopped reading: a TLS
      // close could wait for that writer, so it runs on the closer, never on the caller's thread.
      SocketCloser.shared().close(s);
    }
  }

  @Override
  public boolean awaitTermination(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    if (ended.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
      return awaitReader(deadline) && awaitWriter(deadline);
    }
    Socket s;
    synchronized (lock) {
      s = socket;
    }
    if (s != null) {
      SocketCloser.shared().close(s); // the last resort: unblock the read thread
    }
    return ended.await(Math.max(1, timeout.toNanos() / 2), TimeUnit.NANOSECONDS)
        && awaitReader(System.nanoTime() + timeout.toNanos() / 2)
        && awaitWriter(System.nanoTime() + timeout.toNanos() / 2);
  }

  /**
   * The latch is counted down in the read thread's last lines, just before it ends: join it, so
   * that "terminated" means no thread of this connection is alive (unless called on it).
   */
  private boolean awaitReader(long deadlineNanos) throws InterruptedException {
    Thread r = client.readThread();
    if (r == null || r == Thread.currentThread()) {
      return true;
    }
    long left = deadlineNanos - System.nanoTime();
    if (left > 0) {
      TimeUnit.NANOSECONDS.timedJoin(r, left);
    }
    return !r.isAlive();
  }

  /** The write thread ends once the read thread has interrupted it on close. */
  private boolean awaitWriter(long deadlineNanos) throws InterruptedException {
    Thread w = writer != null ? writer : findWriter();
    if (w == null || w == Thread.currentThread()) {
      return true; // none was started (the dial failed before), or it has ended
    }
    long left = deadlineNanos - System.nanoTime();
    if (left > 0) {
      TimeUnit.NANOSECONDS.timedJoin(w, left);
    }
    return !w.isAlive();
  }

  /**
   * The write thread before {@link #nameWriter} (a server that never answered the upgrade): the
   * one thread of this connection's own group, besides the reader, still carrying the library's
   * name. The group holds this connection's threads only: the reader, and the writer it starts.
   */
  private Thread findWriter() {
    if (group == null) {
      return null;
    }
    Thread[] threads = new Thread[4];
    int n = group.enumerate(threads, /* recurse= */ false);
    for (int i = 0; i < n; i++) {
      if (threads[i] != client.readThread()
          && threads[i].getName().startsWith("WebSocketWriteThread")) {
        return threads[i];
      }
    }
    return null;
  }

  /** Records the socket so that a dial in progress can be aborted by closing it. */
  private final class TrackingSocketFactory extends SocketFactory {
    private final SocketFactory base;

    TrackingSocketFactory(SocketFactory base) {
      this.base = base;
    }

    @Override
    public Socket createSocket() throws IOException {
      synchronized (lock) {
        if (closed) {
          throw new IOException("closed before the socket was created");
        }
        socket = base.createSocket();
        return socket;
      }
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
      throw new UnsupportedOperationException("not used by Java-WebSocket");
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress local, int localPort)
        throws IOException {
      throw new UnsupportedOperationException("not used by Java-WebSocket");
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
      throw new UnsupportedOperationException("not used by Java-WebSocket");
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress local, int localPort)
        throws IOException {
      throw new UnsupportedOperationException("not used by Java-WebSocket");
    }
  }
}
