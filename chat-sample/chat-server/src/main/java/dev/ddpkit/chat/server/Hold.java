package dev.ddpkit.chat.server;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A connection the admission let in but held ({@link
 * dev.ddpkit.reconnect.admission.Admission.Verdict#holdMillis()}): one more would have made
 * more than the accept rate in the last second. Its frames wait here, in order, until the hold is
 * over; then whoever ends it (the timer, or a drain or kill that comes first) either turns it away
 * and the frames are dropped, or serves it and hands the frames it kept to the handler, batch by
 * batch, while frames still arriving on the socket's worker thread join the queue; once the queue
 * is empty, frames go straight to the handler on the worker thread, as for any connection.
 *
 * <p>Nothing is called under this object's lock: Java-WebSocket calls {@code onClose} holding the
 * socket's lock, and a frame's handling may close the socket, so calling out from under this
 * lock could deadlock against it. The socket's close only sets a flag.
 */
final class Hold {
  /** More frames than a client sends before its first answer; past it the peer is flooding. */
  static final int MAX_FRAMES = 64;

  /** What to do with a frame that arrives on the socket's worker thread. */
  enum Offer {
    /** Served: handle it now, on this thread. */
    HANDLE,
    /** Kept for when the hold is over. */
    KEPT,
    /** Never to be served (turned away or closed): drop it. */
    DROPPED,
    /** {@link #MAX_FRAMES} are already waiting: the peer floods. */
    OVERFLOW
  }

  private enum State { HELD, REPLAYING, SERVED, OVER }

  // Guarded by this.
  private State state = State.HELD;
  private final ArrayDeque<String> frames = new ArrayDeque<>();
  private volatile boolean closed;

  /** A frame from the socket's worker thread; see {@link Offer}. */
  synchronized Offer offer(String text) {
    switch (state) {
      case SERVED:
        return Offer.HANDLE;
      case OVER:
        return Offer.DROPPED;
      default:
        if (frames.size() == MAX_FRAMES) {
          return Offer.OVERFLOW;
        }
        frames.add(text);
        return Offer.KEPT;
    }
  }

  /** The socket closed (from {@code onClose}, under the socket's lock: only a flag). */
  void closed() {
    closed = true;
  }

  /** Whether the socket closed. */
  boolean isClosed() {
    return closed;
  }

  /**
   * Ends the hold: true for the one caller that takes it over (then it must call {@link #drop}
   * or drain {@link #nextBatch} until it is empty); false if it was already ended or the socket
   * closed.
   */
  synchronized boolean take() {
    if (state != State.HELD) {
      return false;
    }
    if (closed) {
      drop();
      return false;
    }
    state = State.REPLAYING;
    return true;
  }

  /** Never to be served: the frames kept are dropped, and so is any that arrives later. */
  synchronized void drop() {
    state = State.OVER;
    frames.clear();
  }

  /**
   * The frames kept since the last batch, in order; an empty list when none is left, and from
   * then on frames go straight to the handler ({@link Offer#HANDLE}).
   */
  synchronized List<String> nextBatch() {
    if (state != State.REPLAYING) {
      return List.of();
    }
    if (frames.isEmpty()) {
      state = State.SERVED;
      return List.of();
    }
    List<String> batch = new ArrayList<>(frames);
    frames.clear();
    return batch;
  }
}
