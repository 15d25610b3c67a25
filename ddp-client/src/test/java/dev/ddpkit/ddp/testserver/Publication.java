package dev.ddpkit.ddp.testserver;

/**
 * Serves a DDP publication of a {@link TestDdpServer}. Runs on the server's worker thread: it may
 * push documents and call {@link ServerSubscription#ready()} at once, or keep the subscription and
 * push later from the test. A {@link DdpServerError} it throws becomes a {@code nosub} with that
 * error, any other exception a {@code nosub} with a 500.
 */
@FunctionalInterface
public interface Publication {
  /** Called for each {@code sub} of this publication. */
  void onSubscribe(ServerSubscription subscription);
}
