package dev.ddpkit.ddp.examples;

import dev.ddpkit.reconnect.Attempt;
import dev.ddpkit.reconnect.CloseCodes;
import dev.ddpkit.reconnect.ReconnectionManager;
import java.net.URI;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.java_websocket.client.WebSocketClient;
import org.java_websocket.handshake.ServerHandshake;

/**
 * A plain Java-WebSocket client (no DDP) reconnected by a {@link ReconnectionManager}: the code
 * shown in MIGRATION.md, compiled and tested here so the document is known to work.
 */
public final class PlainWebSocketReconnectExample implements AutoCloseable {
  private final URI uri;
  private final ReconnectionManager manager;
  private final Consumer<String> onMessage;
  private final ExecutorService dialer =
      Executors.newSingleThreadExecutor(r -> new Thread(r, "example-dialer"));
  private volatile Socket current;
  private volatile boolean closing;

  /** Creates the client; nothing is dialed before {@link #start()}. */
  public PlainWebSocketReconnectExample(
      URI uri, ReconnectionManager manager, Consumer<String> onMessage) {
    this.uri = uri;
    this.manager = manager;
    this.onMessage = onMessage;
  }

  /** Dials now, and again each time the manager decides it is time. */
  public void start() {
    // The manager may call the connector on its timer thread or on a socket callback thread:
    // hop to our own thread, and make a new WebSocketClient per attempt (they cannot be reused).
    manager.start(attempt -> dialer.execute(() -> dial(attempt)));
  }

  /** Call from whatever tells you the network is back (Android's ConnectivityManager, ...). */
  public void networkAvailable() {
    manager.networkAvailable();
  }

  /** Sends a text frame if connected; returns whether it was sent. */
  public boolean send(String text) {
    Socket s = current;
    if (s == null || !s.isOpen()) {
      return false;
    }
    s.send(text);
    return true;
  }

  /** Closes for good: no more dials. */
  @Override
  public void close() {
    closing = true;
    manager.stop(); // needed when no socket is open (waiting to retry): no onClose will come
    Socket s = current;
    if (s != null) {
      s.close();
    }
    dialer.shutdown();
  }

  private void dial(Attempt attempt) {
    if (closing) {
      return;
    }
    Socket s = new Socket(uri, attempt);
    current = s;
    s.connect(); // returns at once; the library opens the socket on its own thread
  }

  private final class Socket extends WebSocketClient {
    private final Attempt attempt;

    Socket(URI uri, Attempt attempt) {
      super(uri);
      this.attempt = attempt;
    }

    @Override
    public void onOpen(ServerHandshake handshake) {
      attempt.opened(); // a no-op if a newer attempt exists: no generation check of our own
    }

    @Override
    public void onMessage(String message) {
      onMessage.accept(message);
    }

    @Override
    public void onClose(int code, String reason, boolean remote) {
      if (closing) {
        manager.stop(); // we asked for this close: do not retry
      } else {
        // Java-WebSocket reports -1 when the connection could never be made. A late close from
        // an older socket is ignored by its attempt.
        attempt.closed(code < 1000 ? CloseCodes.ABNORMAL : code, reason);
      }
    }

    @Override
    public void onError(Exception e) {
      // onClose always follows with a code; the decision is taken there.
    }
  }
}
