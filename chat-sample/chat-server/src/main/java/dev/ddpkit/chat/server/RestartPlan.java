package dev.ddpkit.chat.server;

import dev.ddpkit.reconnect.Ticker;
import dev.ddpkit.reconnect.admission.Admission;
import java.time.Duration;

/**
 * The appointments of a planned restart: the server expects its successor to be ready {@code
 * readyIn} after the drain starts, admitting {@code capacity} connections per second from an empty
 * bucket, so the connection in place k of the queue is told to come back at {@code readyIn + k/C}
 * (the admission's {@link Admission#restartAppointment}). Each close carries the time left until
 * its own appointment, counted from the start of the drain, so closing a thousand sockets one
 * after the other does not push every appointment back. Places are handed out in the order the
 * closes are made; a connection that arrives during the drain joins the end of the queue.
 */
final class RestartPlan {
  private static final long MS = 1_000_000L;

  private final Duration readyIn;
  private final Admission slots;
  private final Ticker ticker;
  private final long startNanos;
  private int places;

  /**
   * @param capacity the connections per second the next server admits; 0 when it admits all at
   *     once, and then every appointment is {@code readyIn}
   */
  RestartPlan(Duration readyIn, int capacity, Ticker ticker) {
    if (readyIn == null || readyIn.isNegative()) {
      throw new IllegalArgumentException("readyIn must be >= 0: " + readyIn);
    }
    if (capacity < 0) {
      throw new IllegalArgumentException("capacity must be >= 0: " + capacity);
    }
    this.readyIn = readyIn;
    // Only its arithmetic is used: restartAppointment does not touch the bucket.
    this.slots = capacity == 0 ? null
        : Admission.builder().capacity(capacity).ticker(ticker::read).build();
    this.ticker = ticker;
    this.startNanos = ticker.read();
  }

  /** The close reason of the next connection in the queue: {@code service restart; retry-after=<ms>}. */
  synchronized String nextCloseReason() {
    places++;
    long appointmentMillis = slots == null ? readyIn.toMillis()
        : slots.restartAppointment(readyIn, places).retryAfterMillis();
    long elapsedMillis = (ticker.read() - startNanos) / MS;
    return "service restart; retry-after=" + Math.max(1, appointmentMillis - elapsedMillis);
  }

  /** The expected time until the next server is ready, in ms. */
  long readyInMillis() {
    return readyIn.toMillis();
  }

  /** How many places were handed out. */
  synchronized int places() {
    return places;
  }
}
