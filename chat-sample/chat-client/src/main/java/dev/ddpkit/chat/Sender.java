package dev.ddpkit.chat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sends the outbox, oldest first, once logged in, each kind within its method's budget ({@code
 * sendMessage}, {@code updateMessage}, {@code deleteMessage}); an edit or a deletion never
 * overtakes an older entry of the same message. Edits and deletions are safe to re-send: the same
 * text again, or a message deleted already, is answered with nothing, which counts as done. Each
 * message keeps its client-chosen {@code _id} across re-sends, so the server stores it once; a
 * result with no result field (Rocket.Chat's answer to an {@code _id} it already has) counts as
 * delivered. No message carries a time stamp: the server stamps it when it arrives, however long
 * it waited offline. A send held back is retried at the server's {@code timeToReset}, one lost with
 * the connection after the next login, and one failing for now after the retry backoff: the whole
 * outbox waits for it (on one timer, so order is kept and no other send job can skip the wait).
 */
final class Sender {
  /** The outbox's retry timer: a pacer key with no budget. */
  private static final String RETRY = Pacer.TIMER + "outbox-retry";

  private final ChatSession session;
  private final Outbox outbox;
  /** Slots taken by {@link ChatClient#sendMessage} on the caller's thread, freed here. */
  private final AtomicInteger slots = new AtomicInteger();
  /**
   * Jobs waiting in the pacer, under the budget of their kind's method: each takes the oldest
   * ready entry of its kind when it goes.
   */
  private final Map<Outbox.Kind, List<Pacer.Job>> jobs = new java.util.EnumMap<>(Outbox.Kind.class);
  /** The callers' futures of edits and deletions, by outbox key. */
  private final Map<String, java.util.concurrent.CompletableFuture<Void>> changeFutures =
      new java.util.HashMap<>();
  /** The outbox's one retry timer after a failure for now; while it waits, nothing is sent. */
  private Pacer.Job retryJob;
  private int attempts;

  Sender(ChatSession session) {
    this.session = session;
    this.outbox = new Outbox(session.settings.outboxCapacity());
  }

  /** Takes a slot for a new message (any thread); false if the outbox is full. */
  boolean reserve() {
    while (true) {
      int n = slots.get();
      if (n >= outbox.capacity()) {
        return false;
      }
      if (slots.compareAndSet(n, n + 1)) {
        return true;
      }
    }
  }

  /** Frees slots of messages that left the outbox, or never entered it. */
  void release(int n) {
    slots.addAndGet(-n);
  }

  /** Returns the number of unacknowledged messages, as seen from any thread. */
  int size() {
    return slots.get();
  }

  /** Returns how many messages wait to be sent or acknowledged (on the loop). */
  int waiting() {
    return outbox.size();
  }

  boolean isEmpty() {
    return outbox.isEmpty();
  }

  void add(Outbox.Entry entry) {
    outbox.add(entry);
    schedule();
  }

  /** Adds an edit or a deletion; {@code done} completes when acknowledged, fails if refused. */
  void add(Outbox.Entry entry, java.util.concurrent.CompletableFuture<Void> done) {
    changeFutures.put(entry.key(), done);
    add(entry);
  }

  /** The client stopped: the edits and deletions still waiting fail. */
  void onClosed(RuntimeException why) {
    changeFutures.values().forEach(f -> f.completeExceptionally(why));
    changeFutures.clear();
  }

  void onLoggedIn() {
    schedule();
  }

  /** One send job per queued message not yet covered by one, unless the outbox backs off. */
  private void schedule() {
    if (Pacer.waiting(retryJob)) {
      return; // retryDue() schedules again
    }
    for (Outbox.Kind kind : Outbox.Kind.values()) {
      List<Pacer.Job> own = jobs.computeIfAbsent(kind, k -> new ArrayList<>());
      own.removeIf(j -> !Pacer.waiting(j));
      int queued = outbox.queuedCount(kind);
      while (own.size() < queued) {
        own.add(session.pacer.submit(kind.method(), null, () -> sendOldest(kind)));
      }
    }
  }

  private void sendOldest(Outbox.Kind kind) {
    if (!session.loggedIn()) {
      schedule(); // the gate reopens at the next login
      return;
    }
    // Nothing ready (an older entry of the same message is still out): the answer to it
    // schedules again.
    outbox.takeOldestReady(kind).ifPresent(e -> {
      Map<String, Object> msg = switch (kind) {
        case SEND, EDIT -> Map.of("_id", e.id(), "rid", e.rid(), "msg", e.text());
        case DELETE -> Map.of("_id", e.id());
      };
      session.call(kind.method(), List.of(msg)).whenComplete((result, error) -> onAnswer(e, error));
    });
  }

  /**
   * A send failed for now: the whole outbox waits for the next step of the retry curve, on one
   * timer (a later failure while it waits does not add a second one), then goes on in order.
   */
  private void backOff() {
    if (Pacer.waiting(retryJob)) {
      return;
    }
    jobs.values().forEach(list -> list.forEach(session.pacer::cancel));
    jobs.clear();
    Duration d = session.settings.retryDelay(++attempts);
    retryJob = session.pacer.submitAfter(RETRY, null, d, this::retryDue);
  }

  private void retryDue() {
    retryJob = null;
    schedule();
  }

  private void onAnswer(Outbox.Entry e, Throwable error) {
    if (session.closed()) {
      return;
    }
    if (error == null) {
      // A result, or none at all: Rocket.Chat's "already have that _id" (or, for an edit or a
      // deletion, "nothing to do": the same text, a message deleted already). Done either way.
      attempts = 0;
      if (outbox.acknowledge(e.key()).isPresent()) {
        release(1);
        if (e.kind() == Outbox.Kind.SEND) {
          session.sent(e.rid(), e.id());
        } else {
          complete(e, null);
        }
      }
    } else {
      Refusal r = Refusal.of(error, session.loggedIn());
      switch (r.kind()) {
        case PERMANENT:
          if (outbox.reject(e.key()).isPresent()) {
            release(1);
            String what = e.kind() == Outbox.Kind.SEND ? "message " + e.id() + " to room "
                : (e.kind() == Outbox.Kind.EDIT ? "edit of " : "deletion of ") + e.id()
                    + " in room ";
            session.error(what + e.rid() + " rejected: " + r.message());
            complete(e, new IllegalStateException(what + e.rid() + " rejected: " + r.message()));
          }
          break;
        case HOLD:
          requeue(e);
          session.pacer.hold(e.kind().method(), r.timeToReset());
          schedule();
          break;
        case TEMPORARY:
          requeue(e);
          backOff();
          break;
        case LOST:
          session.connectionLost();
          requeue(e);
          schedule(); // waits behind the gate until logged in again
          break;
        case NEEDS_LOGIN:
          requeue(e);
          schedule(); // waits behind the gate until logged in again
          break;
        default:
          throw new AssertionError("Unexpected refusal: " + r.kind());
      }
    }
    if (outbox.isEmpty()) {
      session.flushed();
    }
    schedule(); // an edit or a deletion that waited for this entry may go now
    session.status.refresh();
  }

  private void complete(Outbox.Entry e, RuntimeException refusal) {
    java.util.concurrent.CompletableFuture<Void> f = changeFutures.remove(e.key());
    if (f != null) {
      if (refusal == null) {
        f.complete(null);
      } else {
        f.completeExceptionally(refusal);
      }
    }
  }

  private void requeue(Outbox.Entry e) {
    outbox.requeue(e.key());
    session.counters.resent();
  }
}
