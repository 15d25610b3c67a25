package dev.ddpkit.ddp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ddpkit.reconnect.Cancellable;
import dev.ddpkit.reconnect.ReconnectionManager;
import dev.ddpkit.reconnect.Scheduler;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLContext;

/**
 * A DDP client. Reconnection is delegated to a {@link ReconnectionManager}; after every reconnect
 * the client runs the {@link ReconnectHook}s (log in with a resume token), re-sends every live
 * subscription and every unanswered call, and resynchronises its collections in one step.
 *
 * <p>All work runs on one event-loop thread per client. Public methods may be called from any
 * thread.
 *
 * <p>API CONTRACT STUB: the implementation is in progress (see the ddp-client issue).
 */
public final class DdpClient implements AutoCloseable {

  private DdpClient(Builder builder) {
    throw new UnsupportedOperationException("not implemented yet");
  }

  /** Returns a builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** Starts connecting (returns at once). Calling it again while running does nothing. */
  public void connect() {
    throw new UnsupportedOperationException("not implemented yet");
  }

  /** Returns the current status. */
  public DdpStatus status() {
    throw new UnsupportedOperationException("not implemented yet");
  }

  /** Adds a status listener; returns a handle that removes it. */
  public Cancellable addStatusListener(StatusListener listener) {
    throw new UnsupportedOperationException("not implemented yet");
  }

  /** Adds a hook run on every reconnection; returns a handle that removes it. */
  public Cancellable onReconnect(ReconnectHook hook) {
    throw new UnsupportedOperationException("not implemented yet");
  }

  /** Calls a method with {@link CallOptions#DEFAULT}; params are Jackson-serialisable values. */
  public CompletableFuture<JsonNode> call(String method, Object... params) {
    throw new UnsupportedOperationException("not implemented yet");
  }

  /**
   * Calls a method. The future completes with the result ({@code NullNode} if none), or
   * exceptionally with a {@link DdpMethodException} (server error, {@code invocation-failed}) or a
   * {@link DdpException} (queue full, client closed).
   */
  public CompletableFuture<JsonNode> call(String method, List<?> params, CallOptions options) {
    throw new UnsupportedOperationException("not implemented yet");
  }

  /** Subscribes to a publication; params are Jackson-serialisable values. */
  public Subscription subscribe(String name, Object... params) {
    throw new UnsupportedOperationException("not implemented yet");
  }

  /** Subscribes to a publication. */
  public Subscription subscribe(String name, List<?> params) {
    throw new UnsupportedOperationException("not implemented yet");
  }

  /** Returns the local store of a collection (created empty on first use). */
  public DdpCollection collection(String name) {
    throw new UnsupportedOperationException("not implemented yet");
  }

  /**
   * Treats {@code collection} as an event stream: its data messages are delivered to {@code
   * listener} at once and never stored or held back. Returns a handle that removes the listener.
   */
  public Cancellable onStreamEvent(String collection, StreamListener listener) {
    throw new UnsupportedOperationException("not implemented yet");
  }

  /** Tells the client the network is back: if it is waiting to retry, it dials at once. */
  public void networkAvailable() {
    throw new UnsupportedOperationException("not implemented yet");
  }

  /**
   * For an app returning to the foreground: traffic seen in the last 2 s, nothing to do; nothing
   * for longer than the heartbeat timeout, redial at once; in between, a ping with a short timeout
   * decides. The future completes with whether the connection was found alive.
   */
  public CompletableFuture<Boolean> checkHealth() {
    throw new UnsupportedOperationException("not implemented yet");
  }

  /**
   * Closes the connection for good, fails every pending call and subscription with a {@link
   * DdpException}, and stops the client's thread.
   */
  @Override
  public void close() {
    throw new UnsupportedOperationException("not implemented yet");
  }

  /** Builds a {@link DdpClient}. Defaults are set here; each setter validates its argument. */
  public static final class Builder {
    private Builder() {}

    /** The server URL: {@code ws://host:port/websocket} or {@code wss://...}. Required. */
    public Builder url(String url) {
      throw new UnsupportedOperationException("not implemented yet");
    }

    /** The server URL. */
    public Builder url(URI url) {
      throw new UnsupportedOperationException("not implemented yet");
    }

    /**
     * The reconnection manager (the default: DDP close profile, RFC curve, stable after 10 s).
     * Conflicts with {@link #reopen(Duration)}.
     */
    public Builder reconnection(ReconnectionManager manager) {
      throw new UnsupportedOperationException("not implemented yet");
    }

    /**
     * Legacy fixed-interval reconnection, as the Rocket.Chat SDK's {@code reopen: 5000}. Off by
     * default; prefer {@link #reconnection(ReconnectionManager)}.
     */
    public Builder reopen(Duration interval) {
      throw new UnsupportedOperationException("not implemented yet");
    }

    /** Send a ping after this long without inbound traffic (default 25 s). */
    public Builder heartbeatInterval(Duration interval) {
      throw new UnsupportedOperationException("not implemented yet");
    }

    /** Declare the socket dead if nothing arrives this long after a ping (default 15 s). */
    public Builder heartbeatTimeout(Duration timeout) {
      throw new UnsupportedOperationException("not implemented yet");
    }

    /** Give up on a dial that has not reached DDP {@code connected} after this long (default 10 s). */
    public Builder connectTimeout(Duration timeout) {
      throw new UnsupportedOperationException("not implemented yet");
    }

    /** The scheduler for heartbeat and connect timers (default: the shared real-time one). */
    public Builder scheduler(Scheduler scheduler) {
      throw new UnsupportedOperationException("not implemented yet");
    }

    /** How many calls may wait while offline before new ones fail at once (default 1,000). */
    public Builder maxQueuedCalls(int max) {
      throw new UnsupportedOperationException("not implemented yet");
    }

    /** The TLS context for {@code wss://} (default: the JVM's, with host name verification on). */
    public Builder sslContext(SSLContext context) {
      throw new UnsupportedOperationException("not implemented yet");
    }

    /** Adds a status listener. */
    public Builder statusListener(StatusListener listener) {
      throw new UnsupportedOperationException("not implemented yet");
    }

    /** Names the client in thread names and logs (default {@code ddp-client-N}). */
    public Builder name(String name) {
      throw new UnsupportedOperationException("not implemented yet");
    }

    /** Returns the client, not yet connected: call {@link DdpClient#connect()}. */
    public DdpClient build() {
      return new DdpClient(this);
    }
  }
}
