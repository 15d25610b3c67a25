package dev.ddpkit.ddp.transport;

import dev.ddpkit.ddp.protocol.DdpProtocolException;
import java.net.Socket;
import java.net.URI;
import java.nio.ByteBuffer;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import org.java_websocket.client.WebSocketClient;
import org.java_websocket.framing.CloseFrame;
import org.java_websocket.handshake.ServerHandshake;

/**
 * The Java-WebSocket client of one {@link WebSocketTransport}: reports the library's callbacks to
 * the {@link TransportListener}, in {@link Transport}'s terms (close codes, TLS failures).
 */
final class WebSocketTransportClient extends WebSocketClient {
  private final WebSocketTransport transport;
  private final TransportListener listener;
  /** The TLS failure seen before the close, if any: the close itself carries no reason. */
  private volatile SSLException tlsFailure;
  private volatile Thread readThread;
  /** A failed dial's close reported by another thread, delivered when the read thread ends. */
  private Runnable deferredClose; // guarded by transport.lock
  /** The close frame the server sent, once one arrived: its code and reason are the close's. */
  private volatile PeerClose peerClose;

  /** The code and reason of the server's close frame. */
  private record PeerClose(int code, String reason) {}

  WebSocketTransportClient(
      WebSocketTransport transport,
      URI uri,
      BoundedMessageDraft draft,
      int connectTimeoutMillis,
      TransportListener listener) {
    super(uri, draft, null, connectTimeoutMillis);
    this.transport = transport;
    this.listener = listener;
  }

  @Override
  public void run() {
    readThread = Thread.currentThread();
    try {
      super.run();
    } finally {
      Runnable close;
      synchronized (transport.lock) {
        close = deferredClose;
        deferredClose = null;
      }
      if (close != null) {
        close.run();
      }
      transport.ended.countDown();
    }
  }

  /**
   * The library reads this setting twice in {@code run()}: before the socket connects, to set
   * {@code SO_RCVBUF} if positive, and once connected, as the size of its read array. Zero the
   * first time keeps the kernel's own (auto-tuned) receive buffer; {@link
   * WebSocketTransportFactory#READ_BUFFER_BYTES} the second makes the array a quarter of the
   * library's default.
   */
  @Override
  public int getReceiveBufferSize() {
    Socket s = getSocket();
    return s != null && s.isConnected() ? WebSocketTransportFactory.READ_BUFFER_BYTES : 0;
  }

  @Override
  protected void onSetSSLParameters(SSLParameters parameters) {
    super.onSetSSLParameters(parameters);
    // Stated here as well, so that host name verification cannot silently depend on the
    // library's default.
    parameters.setEndpointIdentificationAlgorithm("HTTPS");
  }

  @Override
  public void onOpen(ServerHandshake handshake) {
    transport.nameWriter();
    listener.onOpen();
  }

  @Override
  public void onMessage(String message) {
    listener.onMessage(message);
  }

  /**
   * A text message that came in one frame, as the UTF-8 bytes the library checked ({@link
   * Utf8TextDraft}); the payload buffer is the frame's own, made for it and dropped after.
   */
  void onText(ByteBuffer payload) {
    if (payload.hasArray()) {
      listener.onText(payload.array(), payload.arrayOffset() + payload.position(),
          payload.remaining());
    } else {
      byte[] copy = Utf8TextDraft.bytes(payload);
      listener.onText(copy, 0, copy.length);
    }
  }

  @Override
  public void onMessage(ByteBuffer bytes) {
    // DDP is text only. Reported as a protocol error and otherwise ignored, as an unknown
    // message type is; the library would drop it silently.
    listener.onError(new DdpProtocolException(
        "a binary frame of " + bytes.remaining() + " bytes (DDP is text only)"));
  }

  /**
   * Called by the library on its read thread once the server's close frame has arrived (remote;
   * its echo is queued by then), and when we close (not remote).
   */
  @Override
  public void onClosing(int code, String reason, boolean remote) {
    if (remote) {
      peerClose = new PeerClose(code, reason == null ? "" : reason);
    }
  }

  @Override
  public void onClose(int code, String reason, boolean remote) {
    if (code < 0 && Thread.currentThread() != readThread) {
      // A dial that failed (a TLS handshake, say) can be closed by the write thread while the
      // read thread is still reporting the cause: report the close once that thread is done.
      synchronized (transport.lock) {
        if (readThread != null && readThread.isAlive()) {
          deferredClose = () -> reportClose(code, reason, remote);
          return;
        }
      }
    }
    reportClose(code, reason, remote);
  }

  private void reportClose(int code, String reason, boolean remote) {
    PeerClose peer = peerClose;
    if (peer != null && remote && code == CloseFrame.ABNORMAL_CLOSE) {
      // The server sent its close frame and closed the socket at once (Java-WebSocket's server
      // does, without waiting for our echo). If our echo, or a frame sent just before, then meets
      // the closed socket, the library's write thread reports 1006 with no reason, and that can
      // overtake the close frame the read thread is handling: the server's code and reason (1013
      // and its retry-after appointment) would be lost. The frame did arrive: it is the close.
      listener.onClose(peer.code(), peer.reason(), /* remote= */ true);
      return;
    }
    // Java-WebSocket reports a dial that never connected with negative codes: on the wire
    // that is an abnormal closure.
    int c = code >= 1000 && code <= 4999 ? code : 1006;
    String r = reason == null ? "" : reason;
    SSLException tls = tlsFailure;
    if (r.trim().isEmpty() && tls != null) {
      // An untrusted certificate or a host name mismatch: say so, not just "closed 1006".
      r = "TLS handshake failed: " + tls.getMessage();
    }
    listener.onClose(c, r, remote);
  }

  @Override
  public void onError(Exception ex) {
    SSLException tls = findTls(ex);
    if (tls != null) {
      tlsFailure = tls;
    }
    listener.onError(ex);
  }

  /** The read thread, once {@link #run} has started on it; {@code null} before. */
  Thread readThread() {
    return readThread;
  }

  private static SSLException findTls(Throwable t) {
    for (int i = 0; t != null && i < 10; i++, t = t.getCause()) {
      if (t instanceof SSLException e) {
        return e;
      }
    }
    return null;
  }
}
