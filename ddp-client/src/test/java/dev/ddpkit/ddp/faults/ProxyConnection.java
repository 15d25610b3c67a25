package dev.ddpkit.ddp.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One proxied connection: a client socket, the socket dialed to the target, and one pipe per
 * direction (a reader thread, a bounded delay queue, a writer thread).
 *
 * <p>Readers decide at read time whether a chunk is forwarded or dropped; writers check the mode again
 * at write time, so a chunk delayed by latency is dropped if the proxy went silent meanwhile.
 */
final class ProxyConnection {

  private static final Logger LOG = LoggerFactory.getLogger(ProxyConnection.class);
  private static final int CHUNK_BYTES = 16 * 1024;
  /** At most this many data chunks wait in one direction (1 MiB); beyond it the reader blocks. */
  private static final int MAX_QUEUED_CHUNKS = 64;

  private final FaultProxy proxy;
  private final String name;
  private final Socket client;
  private final boolean hung;
  private final AtomicBoolean cutArmed = new AtomicBoolean();
  private volatile Socket upstream;
  private volatile boolean closed;
  private final List<Thread> threads = new ArrayList<>(); // guarded by this
  private int finishedDirections; // guarded by this

  ProxyConnection(FaultProxy proxy, String name, Socket client, boolean hung) {
    this.proxy = proxy;
    this.name = name;
    this.client = client;
    this.hung = hung;
  }

  /** Starts the connection's first thread: the dialer (which becomes the client reader) or the drain. */
  void start() {
    if (hung) {
      startThread("hung", this::drainClient);
    } else {
      startThread("c2s-read", this::dialThenPump);
    }
  }

  boolean isClosed() {
    return closed;
  }

  /** Arms a cut of the next server chunk; false if there is no server side to cut. */
  boolean armCut() {
    if (hung || closed) {
      return false;
    }
    cutArmed.set(true);
    return true;
  }

  /** Resets both sides (RST) and stops every thread of this connection. */
  void abort() {
    shutDown(/* reset= */ true);
  }

  private void shutDown(boolean reset) {
    List<Thread> running;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      running = new ArrayList<>(threads);
    }
    if (reset) {
      FaultProxy.resetQuietly(client);
      FaultProxy.resetQuietly(upstream);
    } else {
      FaultProxy.closeQuietly(client);
      FaultProxy.closeQuietly(upstream);
    }
    // Sockets closed unblock reads and writes; interrupts unblock queue takes and waits for PASS.
    for (Thread thread : running) {
      if (thread != Thread.currentThread()) {
        thread.interrupt();
      }
    }
    proxy.wakeWaiters();
    proxy.removed(this);
    LOG.debug("{} {}", name, reset ? "reset" : "closed");
  }

  private boolean startThread(String suffix, Runnable body) {
    synchronized (this) {
      if (closed) {
        return false;
      }
      Thread thread = proxy.newThread(name + "-" + suffix, body);
      threads.add(thread);
      thread.start();
      return true;
    }
  }

  private void drainClient() {
    byte[] buffer = new byte[CHUNK_BYTES];
    try {
      InputStream in = client.getInputStream();
      int n;
      while ((n = in.read(buffer)) >= 0) {
        proxy.readFromClientsCounter().addAndGet(n);
      }
      shutDown(/* reset= */ false);
    } catch (IOException e) {
      abort();
    }
  }

  private void dialThenPump() {
    Socket socket = new Socket();
    upstream = socket; // published before connect, so abort() can interrupt the dial by closing it
    if (closed) {
      FaultProxy.resetQuietly(socket);
      return;
    }
    try {
      client.setTcpNoDelay(true);
      socket.setTcpNoDelay(true);
      socket.connect(proxy.targetAddress(), proxy.connectTimeoutMillis());
    } catch (IOException e) {
      if (!closed) {
        LOG.debug("{}: dial to {} failed, resetting the client", name, proxy.targetAddress(), e);
        abort();
      }
      return;
    }
    Pipe toServer = new Pipe(client, socket, /* toClient= */ false,
        proxy.readFromClientsCounter(), proxy.writtenToServersCounter());
    Pipe toClient = new Pipe(socket, client, /* toClient= */ true,
        proxy.readFromServersCounter(), proxy.writtenToClientsCounter());
    if (startThread("c2s-write", toServer::writeLoop)
        && startThread("s2c-read", toClient::readLoop)
        && startThread("s2c-write", toClient::writeLoop)) {
      toServer.readLoop();
    }
  }

  private void directionDone() {
    boolean both;
    synchronized (this) {
      finishedDirections++;
      both = finishedDirections == 2;
    }
    if (both) {
      shutDown(/* reset= */ false);
    }
  }

  /** One direction: a reader thread fills a delay queue, a writer thread empties it in order. */
  private final class Pipe {
    private final Socket source;
    private final Socket sink;
    private final boolean toClient;
    private final AtomicLong readCounter;
    private final AtomicLong writeCounter;
    private final DelayQueue<Chunk> queue = new DelayQueue<>();
    private final Semaphore room = new Semaphore(MAX_QUEUED_CHUNKS);
    private long lastDue; // reader thread only
    private long sequence; // reader thread only

    Pipe(Socket source, Socket sink, boolean toClient, AtomicLong readCounter, AtomicLong writeCounter) {
      this.source = source;
      this.sink = sink;
      this.toClient = toClient;
      this.readCounter = readCounter;
      this.writeCounter = writeCounter;
      this.lastDue = System.nanoTime();
    }

    void readLoop() {
      byte[] buffer = new byte[CHUNK_BYTES];
      try {
        InputStream in = source.getInputStream();
        while (true) {
          proxy.awaitReading(ProxyConnection.this);
          int n = in.read(buffer);
          if (n < 0) {
            enqueue(Chunk.Kind.EOF, null);
            return;
          }
          readCounter.addAndGet(n);
          if (!proxy.forwarding()) {
            continue; // silent: dropped, not held
          }
          if (toClient && cutArmed.compareAndSet(true, false)) {
            enqueue(Chunk.Kind.CUT, Arrays.copyOf(buffer, n / 2));
            return;
          }
          room.acquire();
          enqueue(Chunk.Kind.DATA, Arrays.copyOf(buffer, n));
        }
      } catch (IOException e) {
        if (!closed) {
          enqueue(Chunk.Kind.ABORT, null); // the peer reset: propagated in order, once forwarding
        }
      } catch (InterruptedException e) {
        // aborted while waiting for room: the connection is closed, nothing left to do
      }
    }

    void writeLoop() {
      try {
        OutputStream out = sink.getOutputStream();
        while (true) {
          Chunk chunk = queue.take();
          switch (chunk.kind) {
            case DATA -> {
              room.release();
              if (proxy.forwarding()) {
                write(out, chunk.data);
              }
            }
            case EOF -> {
              proxy.awaitForwarding(ProxyConnection.this);
              if (!closed) {
                sink.shutdownOutput();
                directionDone();
              }
              return;
            }
            case ABORT -> {
              proxy.awaitForwarding(ProxyConnection.this);
              abort();
              return;
            }
            case CUT -> {
              if (proxy.forwarding()) {
                write(out, chunk.data);
              }
              abort();
              return;
            }
            default -> throw new AssertionError("Unexpected chunk: " + chunk.kind);
          }
        }
      } catch (InterruptedException e) {
        // aborted: the sockets are closed already
      } catch (IOException e) {
        if (!closed) {
          abort(); // the sink is gone: reset the other side too, as a broken path would
        }
      }
    }

    private void write(OutputStream out, byte[] data) throws IOException {
      if (data.length > 0) {
        out.write(data);
        out.flush();
        writeCounter.addAndGet(data.length);
      }
    }

    /** Due at read time + latency, never before the previous chunk: order survives a lower latency. */
    private void enqueue(Chunk.Kind kind, byte[] data) {
      long due = System.nanoTime() + proxy.latencyNanos();
      if (due - lastDue < 0) {
        due = lastDue;
      }
      lastDue = due;
      queue.add(new Chunk(kind, data, due, sequence++));
    }
  }

  /** A chunk of bytes or an end marker, due at a given {@link System#nanoTime()}. */
  private static final class Chunk implements Delayed {
    enum Kind { DATA, EOF, ABORT, CUT }

    final Kind kind;
    final byte[] data;
    final long due;
    final long sequence;

    Chunk(Kind kind, byte[] data, long due, long sequence) {
      this.kind = kind;
      this.data = data;
      this.due = due;
      this.sequence = sequence;
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(due - System.nanoTime(), TimeUnit.NANOSECONDS);
    }

    // Due times never decrease along the sequence, so ordering by sequence is ordering by due time.
    @Override
    public int compareTo(Delayed other) {
      return Long.compare(sequence, ((Chunk) other).sequence);
    }
  }
}
