package dev.ddpkit.chat.server;

import java.util.function.Supplier;

/**
 * What the installed {@link ServerFaults} may do to a running server's open connections: close
 * them all with a close frame, or drop them all with a reset. Each call finds the handler of the
 * server's current run, and refuses when the server is not running.
 */
final class FaultTargets implements ServerFaults.Connections {
  private final Supplier<DdpHandler> running;

  /** {@code running} returns the handler, or throws if the server is not running. */
  FaultTargets(Supplier<DdpHandler> running) {
    this.running = running;
  }

  @Override
  public void closeAll(int code, String reason) {
    DdpHandler h = running.get();
    h.sessions().forEach(s -> h.closeGracefully(s, code, reason == null ? "" : reason));
  }

  @Override
  public void dropAll() {
    running.get().sessions().forEach(s -> Liveness.dropAbruptly(s.conn));
  }
}
