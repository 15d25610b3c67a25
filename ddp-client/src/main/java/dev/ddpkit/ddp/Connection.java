package dev.ddpkit.ddp;

import dev.ddpkit.ddp.protocol.DdpProtocolException;
import dev.ddpkit.ddp.transport.Transport;
import dev.ddpkit.ddp.transport.TransportFactory;
import dev.ddpkit.ddp.transport.TransportListener;
import dev.ddpkit.reconnect.Attempt;
import dev.ddpkit.reconnect.Cancellable;
import dev.ddpkit.reconnect.Scheduler;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One socket and everything that belongs to it: the reconnection manager's attempt it was dialed
 * for, its transport, and its timers. {@link #close} ends all of it as a unit: the transport is
 * closed, every timer cancelled, and any event of its transport or timer that comes later is
 * dropped on the loop, so no handler checks a generation by hand. Event loop only, except the
 * transport's callbacks, which hop onto the loop; the one exception is the opening frame (DDP
 * {@code connect}), which the socket's read thread sends itself the moment the socket opens, so
 * that the handshake does not wait for a turn of the loop (see {@link #takeOpeningFrame}).
 */
final class Connection {
  private static final Logger log = LoggerFactory.getLogger(DdpClient.class);

  /** What the engine does with this connection's transport events, on the loop. */
  interface Events {
    void onOpen();

    void onFrame(String text);

    /** A frame as UTF-8 bytes the transport checked ({@link TransportListener#onText}). */
    void onFrame(byte[] utf8, int offset, int length);

    void onClosed(int code, String reason, boolean remote);

    void onTransportProtocolError(DdpProtocolException error);
  }

  private final Attempt attempt;
  private final EventLoop loop;
  private final LoopTimers timers;
  private final RetiredTransports retired;
  // Volatile: the read thread reads it at open to send the opening frame.
  private volatile Transport transport;
  private volatile boolean closed;
  /** The frame to send the moment the socket opens; taken once, by the read thread or the loop. */
  private final AtomicReference<String> openingFrame = new AtomicReference<>();

  Connection(Attempt attempt, Scheduler scheduler, EventLoop loop, RetiredTransports retired) {
    this.attempt = attempt;
    this.loop = loop;
    this.timers = new LoopTimers(scheduler, loop::execute, () -> closed);
    this.retired = retired;
  }

  /** The attempt this socket was dialed for: its reports go there. */
  Attempt attempt() {
    return attempt;
  }

  /**
   * Opens the transport; its events reach {@code events} on the loop while this is open. {@code
   * opening} (DDP {@code connect}, fixed at the dial: the session and count it offers cannot move
   * once the previous socket is gone) goes out at the socket's open, before the loop hears of it.
   */
  void open(TransportFactory factory, URI uri, String opening, Events events) throws Exception {
    openingFrame.set(opening);
    transport = factory.open(uri, new Listener(events));
  }

  /**
   * On the loop, at {@link Events#onOpen}: the opening frame if the read thread has not sent it
   * (the socket opened before {@code factory.open} returned, so it had no transport to send on),
   * then the caller sends it; {@code null} if it was sent at the open.
   */
  String takeOpeningFrame() {
    return openingFrame.getAndSet(null);
  }

  /** Whether {@link #close} has not been called and the transport did not report its close. */
  boolean isOpen() {
    return !closed;
  }

  /**
   * Sends a frame if the transport is open; a failure is the transport's to report. On the loop,
   * or on the read thread for the opening frame.
   */
  boolean send(String frame) {
    Transport t = transport;
    if (closed || t == null) {
      return false;
    }
    try {
      t.send(frame);
    } catch (RuntimeException e) {
      log.debug("send failed", e);
    }
    return true;
  }

  /** Runs {@code task} on the loop after {@code after}, unless this connection is closed by then. */
  Cancellable schedule(Duration after, Runnable task) {
    return timers.schedule(after, task);
  }

  /**
   * Ends this connection: cancels its timers and closes its transport locally with {@code code}
   * and {@code reason}, without waiting. Idempotent.
   */
  void close(int code, String reason) {
    if (closed) {
      return;
    }
    closed = true;
    timers.cancelAll();
    Transport t = transport;
    transport = null;
    if (t != null) {
      retired.retire(t, code, reason);
    }
  }

  /** The transport reported its close: ends this connection without closing it again. */
  void transportClosed() {
    closed = true;
    timers.cancelAll();
    Transport t = transport;
    transport = null;
    if (t != null) {
      retired.add(t);
    }
  }

  /** The transport's events, hopped onto the loop and dropped once the connection is closed. */
  private final class Listener implements TransportListener {
    private final Events events;

    Listener(Events events) {
      this.events = events;
    }

    @Override
    public void onOpen() {
      // On the read thread: the handshake's first frame leaves now, not after a turn of the loop
      // (on a busy machine that turn is most of a resumed reconnect's time); the loop then moves
      // the engine on. A transport not yet known here leaves the frame to the loop.
      if (transport != null && !closed) {
        String opening = takeOpeningFrame();
        if (opening != null) {
          send(opening);
        }
      }
      loop.execute(() -> {
        if (!closed) {
          events.onOpen();
        }
      });
    }

    @Override
    public void onMessage(String text) {
      // The socket's thread holds no lock here: past the loop's backlog bound it waits.
      loop.executeInbound(() -> {
        if (!closed) {
          events.onFrame(text);
        }
      });
    }

    @Override
    public void onText(byte[] utf8, int offset, int length) {
      // The socket's thread holds no lock here: past the loop's backlog bound it waits.
      loop.executeInbound(() -> {
        if (!closed) {
          events.onFrame(utf8, offset, length);
        }
      });
    }

    @Override
    public void onClose(int code, String reason, boolean remote) {
      loop.execute(() -> {
        if (!closed) {
          events.onClosed(code, reason == null ? "" : reason, remote);
        }
      });
    }

    @Override
    public void onError(Throwable error) {
      if (error instanceof DdpProtocolException p) { // reported by the transport: a binary frame
        loop.execute(() -> {
          if (!closed) {
            events.onTransportProtocolError(p);
          }
        });
      } else {
        log.debug("transport error: {}", error.toString());
      }
    }
  }
}
