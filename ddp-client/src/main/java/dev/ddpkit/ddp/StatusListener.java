package dev.ddpkit.ddp;

/** Observes every change of {@link DdpClient#status()}, in order, on the client's event loop. */
@FunctionalInterface
public interface StatusListener {
  /** A listener that does nothing. */
  StatusListener NONE = status -> {};

  /** Called with the new status after each change. */
  void onStatus(DdpStatus status);
}
