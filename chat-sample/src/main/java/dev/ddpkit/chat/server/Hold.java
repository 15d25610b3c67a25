package dev.ddpkit.chat.server;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * A connection the admission let in but held ({@link
 * dev.ddpkit.reconnect.admission.Admission.Verdict#holdMillis()}): one more would have made
 * more than the accept rate in the last second. Its frames wait here, in order, until the timer
 * starts serving it; from then on each frame is handled under this object's lock, so that the
 * frames kept and the ones still arriving on the socket's worker thread are handled one at a time
 * and in order.
 */
final class Hold {
  /** More frames than a client sends before its first answer; past it the peer is flooding. */
  static final int MAX_FRAMES = 64;

  // Guarded by this.
  private List<String> frames = new ArrayList<>();
  private boolean started;
  private boolean over;

  /**
   * A frame from the socket's worker thread: handled now if the connection is served, kept if it
   * is still held. Returns false, keeping nothing, when {@link #MAX_FRAMES} are already waiting.
   */
  synchronized boolean frame(String text, Consumer<String> handle) {
    if (started) {
      handle.accept(text);
      return true;
    }
    if (over || frames.size() == MAX_FRAMES) {
      return over;
    }
    frames.add(text);
    return true;
  }

  /** The connection closed: it is never to be served. */
  synchronized void closed() {
    over = true;
    frames = List.of();
  }

  /**
   * The hold is over (on the timer): unless the connection closed meanwhile, {@code serve} takes
   * it on (false: it turned it away instead) and the frames kept are handled, in order.
   */
  synchronized void start(BooleanSupplier serve, Consumer<String> handle) {
    if (over) {
      return;
    }
    over = true;
    if (!serve.getAsBoolean()) {
      frames = List.of();
      return;
    }
    started = true;
    List<String> kept = frames;
    frames = List.of();
    kept.forEach(handle);
  }
}
