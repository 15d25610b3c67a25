package dev.ddpkit.ddp;

import dev.ddpkit.ddp.ClientEngine.Cause;
import dev.ddpkit.ddp.protocol.ClientMessages;
import dev.ddpkit.ddp.protocol.DdpProtocolException;
import dev.ddpkit.ddp.transport.TransportFactory;
import dev.ddpkit.reconnect.Attempt;
import dev.ddpkit.reconnect.Cancellable;
import dev.ddpkit.reconnect.CloseCodes;
import dev.ddpkit.reconnect.Scheduler;
import java.net.URI;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dialing and the DDP handshake: a {@link Connection} per dial of the manager, the connect
 * timeout, {@code connect} with the last session, and version negotiation (a {@code failed}
 * naming another version we speak redials at once within the same attempt). Event loop only.
 */
final class Dialer {
  private static final Logger log = LoggerFactory.getLogger(DdpClient.class);

  private final ClientEngine engine;
  private final String name;
  private final URI uri;
  private final Scheduler scheduler;
  private final Duration connectTimeout;
  private final TransportFactory transports;
  private final EventLoop loop;
  private final RetiredTransports retired;
  private final ClientMessages out;
  private final Inbound inbound;
  private Cancellable connectTimer;
  private String version = ClientEngine.SUPPORTED_VERSIONS.get(0);
  private int negotiations;

  Dialer(ClientEngine engine, EngineConfig config, TransportFactory transports, EventLoop loop,
      RetiredTransports retired, ClientMessages out, Inbound inbound) {
    this.engine = engine;
    this.name = config.name();
    this.uri = config.uri();
    this.scheduler = config.scheduler();
    this.connectTimeout = config.connectTimeout();
    this.transports = transports;
    this.loop = loop;
    this.retired = retired;
    this.out = out;
    this.inbound = inbound;
  }

  /** The DDP version of the current (or last) handshake. */
  String version() {
    return version;
  }

  /** DDP {@code connected}: the connect timeout ends. */
  void connected() {
    connectTimer.cancel();
  }

  /** The call of the manager to dial: a new socket for {@code attempt}. */
  void dial(Attempt attempt) {
    EngineState state = engine.state();
    if (state == EngineState.CLOSED || state == EngineState.FAILED) {
      return;
    }
    if (state.hasConnection()) { // overtaken: reporting on its attempt is a no-op
      engine.transitionTo(EngineState.WAITING, Cause.of(CloseCodes.NORMAL, "redial"));
    }
    log.debug("{}: dialing {} (attempt {})", name, Redaction.uri(uri), attempt.number());
    negotiations = 0;
    open(attempt);
  }

  private void open(Attempt attempt) {
    Connection c = new Connection(attempt, scheduler, loop, retired);
    engine.attach(c);
    connectTimer = c.schedule(connectTimeout, this::onConnectTimeout);
    SessionResumption r = engine.resumption;
    String connect = out.connect(version, ClientEngine.SUPPORTED_VERSIONS, r.offeredSession(),
        r.offeredCount());
    try {
      c.open(transports, uri, connect, new Events());
    } catch (Exception | LinkageError e) {
      log.info("{}: could not start a connection: {}", name, e.toString());
      engine.transitionTo(EngineState.WAITING,
          Cause.of(CloseCodes.ABNORMAL, "connect failed: " + e.getClass().getSimpleName()));
    }
  }

  private void onConnectTimeout() {
    engine.counters.connectTimeouts.incrementAndGet();
    log.info("{}: no DDP 'connected' within {} ms", name, connectTimeout.toMillis());
    engine.transitionTo(EngineState.WAITING, new Cause(
        CloseCodes.ABNORMAL, "connect timeout", CloseCodes.NORMAL, "connect timeout"));
  }

  /** The current connection's transport events (a closed connection's never get here). */
  private final class Events implements Connection.Events {
    @Override
    public void onOpen() {
      if (engine.state() == EngineState.DIALING) {
        engine.transitionTo(EngineState.HANDSHAKE, null);
        String connect = engine.connection().takeOpeningFrame();
        if (connect != null) {
          engine.send(connect);
        } else {
          engine.counters.framesOut.incrementAndGet(); // the read thread sent it at the open
        }
      }
    }

    @Override
    public void onFrame(String text) {
      inbound.onFrame(text);
    }

    @Override
    public void onFrame(byte[] utf8, int offset, int length) {
      inbound.onFrame(utf8, offset, length);
    }

    @Override
    public void onClosed(int code, String reason, boolean remote) {
      engine.connection().transportClosed();
      if (code == CloseCodes.TOO_BIG && !remote) {
        inbound.countProtocolError("a frame was over the size limit");
      }
      log.info("{}: connection closed ({} {}{})", name, code,
          Redaction.abbreviate(reason, 120), remote ? ", by the server" : "");
      engine.transitionTo(EngineState.WAITING, Cause.of(code, reason));
    }

    @Override
    public void onTransportProtocolError(DdpProtocolException error) {
      inbound.countProtocolError(error.getMessage());
    }
  }

  /** DDP {@code failed} in the handshake: negotiate another version, or give up. */
  void onFailed(String proposed) {
    if (ClientEngine.SUPPORTED_VERSIONS.contains(proposed)
        && !proposed.equals(version)
        && negotiations < ClientEngine.SUPPORTED_VERSIONS.size()) {
      log.info("{}: the server proposes DDP {}, reconnecting with it", name, proposed);
      version = proposed;
      negotiations++;
      Connection old = engine.connection();
      old.close(CloseCodes.NORMAL, "version negotiation");
      // Same attempt for the reconnection manager: a negotiation is not a failure to back off from.
      open(old.attempt());
      return;
    }
    engine.fail("the server requires DDP version '" + Redaction.abbreviate(proposed, 20)
        + "', which this client does not support (it supports "
        + String.join(", ", ClientEngine.SUPPORTED_VERSIONS) + ")", true);
  }
}
