package dev.ddpkit.ddp;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ddpkit.ddp.protocol.ClientMessages;
import dev.ddpkit.ddp.protocol.DdpMessage;
import dev.ddpkit.ddp.protocol.DdpMessages;
import dev.ddpkit.ddp.protocol.DdpProtocolException;
import dev.ddpkit.reconnect.CloseCodes;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The frames from the server: parsed (strictly, or tolerantly by default), checked against the
 * state, and routed to the part they concern. What is wrong is counted and logged (rate-limited);
 * what would corrupt the client's state drops the connection. Event loop only.
 */
final class Inbound {
  private static final Logger log = LoggerFactory.getLogger(DdpClient.class);

  private final ClientEngine engine;
  private final String name;
  private final int maxFrameBytes;
  private final boolean strict;
  private final DdpMessages parser;
  private final ClientMessages out;
  private final StatsCounters counters;
  private final WarnLimiter warnings;

  Inbound(ClientEngine engine, EngineConfig config, ObjectMapper mapper, ClientMessages out,
      StatsCounters counters) {
    this.engine = engine;
    this.name = config.name();
    this.maxFrameBytes = config.maxFrameBytes();
    this.strict = config.strictProtocol();
    this.parser = new DdpMessages(mapper);
    this.out = out;
    this.counters = counters;
    this.warnings = new WarnLimiter(config.ticker());
  }

  /** A frame from the current socket. */
  void onFrame(String text) {
    counters.framesIn.incrementAndGet();
    engine.heartbeat.inbound();
    if (tooBig(text)) {
      protocolError("a frame of " + text.length() + " characters is over the limit of "
          + maxFrameBytes + " bytes", CloseCodes.TOO_BIG);
      return;
    }
    DdpMessage m;
    if (strict) {
      try {
        m = parser.parse(text);
      } catch (DdpProtocolException e) {
        protocolError(e.getMessage(), CloseCodes.PROTOCOL_ERROR);
        return;
      }
    } else {
      m = parser.read(text); // a frame that is not DDP comes back as Invalid, dropped below
    }
    engine.resumption.received(m, text);
    handle(m);
  }

  /**
   * A frame from the current socket as its UTF-8 bytes, checked by the transport: parsed from the
   * bytes, with no string made. The same checks and handling as {@link #onFrame(String)}.
   */
  void onFrame(byte[] utf8, int offset, int length) {
    counters.framesIn.incrementAndGet();
    engine.heartbeat.inbound();
    if (length > maxFrameBytes) {
      protocolError("a frame of " + length + " bytes is over the limit of " + maxFrameBytes
          + " bytes", CloseCodes.TOO_BIG);
      return;
    }
    DdpMessage m;
    if (strict) {
      try {
        m = parser.parse(utf8, offset, length);
      } catch (DdpProtocolException e) {
        protocolError(e.getMessage(), CloseCodes.PROTOCOL_ERROR);
        return;
      }
    } else {
      m = parser.read(utf8, offset, length);
    }
    engine.resumption.received(m, utf8, offset, length);
    handle(m);
  }

  private void handle(DdpMessage m) {
    try {
      dispatch(m);
    } catch (RuntimeException e) {
      log.error("{}: failed to handle a '{}' message", name, kind(m), e);
      protocolError("internal error handling '" + kind(m) + "': " + e, CloseCodes.INTERNAL_ERROR);
    }
  }

  private boolean tooBig(String text) {
    int max = maxFrameBytes;
    if (text.length() > max) {
      return true;
    }
    if ((long) text.length() * 3 <= max) {
      return false;
    }
    return text.getBytes(StandardCharsets.UTF_8).length > max;
  }

  private void dispatch(DdpMessage m) {
    if (m instanceof DdpMessage.Ping p) {
      engine.send(out.pong(p.id()));
    } else if (m instanceof DdpMessage.Pong || m instanceof DdpMessage.ServerId) {
      return; // counted as traffic already
    } else if (m instanceof DdpMessage.ServerError e) {
      counters.serverErrors.incrementAndGet();
      // Not the offending message: it is one of ours and may carry a password.
      log.warn("{}: the server reported an error: {}", name, Redaction.abbreviate(e.reason(), 200));
    } else if (m instanceof DdpMessage.Unknown u) {
      countProtocolError("unknown message type '" + Redaction.abbreviate(u.msg(), 40) + "'");
    } else if (m instanceof DdpMessage.Invalid bad) {
      countProtocolError(bad.problem() + " (frame dropped, connection kept)");
    } else if (m instanceof DdpMessage.Deviation d) {
      counters.deviations.incrementAndGet();
      warn("a frame bent the spec, read as '" + kind(d.meaning()) + "': " + d.problem());
      dispatch(d.meaning());
    } else if (!engine.state().isConnected()) {
      if (m instanceof DdpMessage.Connected c) {
        engine.onConnected(c.session());
      } else if (m instanceof DdpMessage.Failed f) {
        engine.dialer.onFailed(f.version());
      } else {
        countProtocolError("'" + kind(m) + "' before 'connected'");
      }
    } else if (m instanceof DdpMessage.DataMessage d) {
      if (!engine.data.route(d, engine.resyncState())) {
        countProtocolError("'" + kind(d) + "' for an unknown document of " + d.collection());
      }
    } else if (m instanceof DdpMessage.Ready r) {
      engine.subs.onReady(r.subs());
    } else if (m instanceof DdpMessage.NoSub n) {
      engine.subs.onNoSub(n.id(), s -> LiveSubscriptions.nosubCause(s, n.error()));
    } else if (m instanceof DdpMessage.Result r) {
      if (!engine.calls.onResult(r)) {
        countProtocolError("'result' for an unknown method id");
      }
    } else if (m instanceof DdpMessage.Updated u) {
      engine.calls.onUpdated(u.methods());
    } else if (m instanceof DdpMessage.Malformed bad) {
      onMalformedReply(bad);
    } else if (m instanceof DdpMessage.Connected || m instanceof DdpMessage.Failed) {
      // The server began a new session (or refused one) on a live connection: what it holds for
      // us (subscriptions, calls, documents sent) no longer matches what we hold.
      protocolError("'" + kind(m) + "' in the middle of a session", CloseCodes.PROTOCOL_ERROR);
    } else {
      countProtocolError("unexpected '" + kind(m) + "' after 'connected'");
    }
  }

  /**
   * A reply for readable ids with a malformed field: only its targets fail, the connection stays.
   * Dropping it would re-send the call or subscription and bring the same reply back, forever.
   */
  private void onMalformedReply(DdpMessage.Malformed bad) {
    countProtocolError(bad.problem());
    switch (bad.msg()) {
      case "result" -> engine.calls.onMalformedResult(bad.ids().get(0), bad.problem());
      case "nosub" ->
          engine.subs.onNoSub(bad.ids().get(0), s -> new DdpException(
              "protocol error in the nosub ending subscription " + s.name() + ": "
                  + bad.problem()));
      case "ready" -> engine.subs.onReady(bad.ids());
      case "updated" -> engine.calls.onUpdated(bad.ids());
      default -> throw new AssertionError("Unexpected malformed reply: " + bad.msg());
    }
  }

  private static String kind(DdpMessage m) {
    String s = m.getClass().getSimpleName();
    return Character.toLowerCase(s.charAt(0)) + s.substring(1);
  }

  /**
   * A protocol error: counted, logged, and the connection dropped. The reason goes to the
   * reconnection manager, which backs off as from any other close (the counter is reset only by a
   * connection that stays up) and puts it in the status.
   */
  private void protocolError(String what, int closeCode) {
    countProtocolError(what);
    counters.protocolDrops.incrementAndGet();
    engine.resumption.forget(); // what the server holds for us no longer matches what we hold
    engine.transitionTo(EngineState.WAITING, new ClientEngine.Cause(
        closeCode, "protocol error: " + what, closeCode, "protocol error"));
  }

  /** A protocol error that does not justify dropping the connection. */
  void countProtocolError(String what) {
    counters.protocolError(what);
    warn("protocol error: " + what);
  }

  /** A warning about the server's frames, rate-limited: a chatty server does not flood the log. */
  private void warn(String what) {
    long held = warnings.admit();
    if (held > 0) {
      log.warn("{}: {} ({} similar warnings suppressed before this one)", name, what, held);
    } else if (held == 0) {
      log.warn("{}: {}", name, what);
    } else {
      log.debug("{}: {}", name, what);
    }
  }
}
