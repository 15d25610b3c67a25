package dev.ddpkit.reconnect;

/**
 * One dial made by a {@link ReconnectionManager}, handed to the {@link Connector}: the socket made
 * for it reports what became of it here, with {@link #opened()}, {@link #closed(int, String)} or
 * {@link #failed(Throwable)}.
 *
 * <p>Reports are tied to the attempt they are made on: once a newer attempt exists, or the manager
 * stopped, every report on this one is a no-op. A late {@code onClose} from an earlier socket is
 * therefore never charged to the current connection, and the socket owner needs no generation
 * filter of its own. Thread-safe; each report may come from any thread.
 */
public final class Attempt {
  private final ReconnectionManager manager;
  private final int number;

  Attempt(ReconnectionManager manager, int number) {
    this.manager = manager;
    this.number = number;
  }

  /** Returns 0 for the first connection, then the number of the retry (1, 2, ...). */
  public int number() {
    return number;
  }

  /**
   * Reports that this attempt's connection is open (for DDP: {@code connected} received). Ignored if
   * the attempt is no longer current or already reported open.
   */
  public void opened() {
    manager.opened(this);
  }

  /**
   * Reports that this attempt's connection closed, or could not be made. A close the client asked
   * for is reported with {@link ReconnectionManager#stop()} instead. Ignored if the attempt is no
   * longer current or its close was already reported.
   *
   * @param code the close code (1006 when the connection dropped or failed to open)
   * @param reason the close reason, may be empty; {@code retry-after=<millis>} is honoured
   * @throws IllegalStateException if the manager's {@link Backoff} failed for this retry (it then
   *     stopped, with the failure as its reason)
   */
  public void closed(int code, String reason) {
    manager.closed(this, code, reason, /* throwFault= */ true);
  }

  /**
   * Reports the close as {@link #closed(int, String)} does, for an owner that follows the
   * manager's status: a failed {@link Backoff} is not thrown here; the manager stops, and its
   * STOPPED status gives the failure as its reason.
   */
  public void reportClosed(int code, String reason) {
    manager.closed(this, code, reason, /* throwFault= */ false);
  }

  /**
   * Reports that this attempt failed with {@code error} before or after it opened: the same as
   * {@code closed(1006, "failed: <error's class>")}. Ignored if the attempt is no longer current.
   *
   * @throws IllegalStateException as {@link #closed(int, String)}
   */
  public void failed(Throwable error) {
    String what = error == null ? "unknown error" : error.getClass().getSimpleName();
    manager.closed(this, CloseCodes.ABNORMAL, "failed: " + what, /* throwFault= */ true);
  }

  /** Returns whether this is still the manager's current attempt (no newer one, not stopped). */
  public boolean isCurrent() {
    return manager.isCurrent(this);
  }

  @Override
  public String toString() {
    return "attempt #" + number;
  }
}
