package dev.ddpkit.ddp.testserver;

/**
 * Answers DDP method calls for a {@link TestDdpServer}. Runs on the server's worker thread. A
 * handler may answer at once, later (keep the {@link MethodCall}), or never; a {@link
 * DdpServerError} it throws becomes an error result, any other exception a 500.
 */
@FunctionalInterface
public interface MethodHandler {
  /** Handles one call. */
  void handle(MethodCall call);
}
