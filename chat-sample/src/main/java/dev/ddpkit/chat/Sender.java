package dev.ddpkit.chat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sends the outbox, oldest first, once logged in, within the {@code sendMessage} budget. Each
 * message keeps its client-chosen {@code _id} across re-sends, so the server stores it once; a
 * result with no result field (Rocket.Chat's answer to an {@code _id} it already has) counts as
 * delivered. No message carries a time stamp: the server stamps it when it arrives, however long
 * it waited offline. A send held back is retried at the server's {@code timeToReset}, one failing
 * for now after a backoff, one lost with the connection after the next login.
 */
final class Sender {
  private final ChatSession session;
  private final Outbox outbox;
  /** Slots taken by {@link ChatClient#sendMessage} on the caller's thread, freed here. */
  private final AtomicInteger slots = new AtomicInteger();
  /** Send jobs waiting in the pacer: each takes the oldest queued message when it goes. */
  private int jobs;
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
    schedule(Duration.ZERO);
  }

  void onLoggedIn() {
    schedule(Duration.ZERO);
  }

  /** One send job per queued message not yet covered by one. */
  private void schedule(Duration delay) {
    while (jobs < outbox.queuedCount()) {
      jobs++;
      session.pacer.submitAfter("sendMessage", null, delay, this::sendOldest);
    }
  }

  private void sendOldest() {
    jobs--;
    if (!session.loggedIn) {
      schedule(Duration.ZERO); // the gate reopens at the next login
      return;
    }
    outbox.takeOldest().ifPresent(e -> {
      java.util.Map<String, Object> msg = java.util.Map.of("_id", e.id(), "rid", e.rid(),
          "msg", e.text());
      session.call("sendMessage", java.util.List.of(msg))
          .whenComplete((result, error) -> onAnswer(e, error));
    });
  }

  private void onAnswer(Outbox.Entry e, Throwable error) {
    if (session.closed) {
      return;
    }
    if (error == null) {
      // A result, or none at all: Rocket.Chat's "already have that _id". Delivered either way.
      attempts = 0;
      if (outbox.acknowledge(e.id()).isPresent()) {
        release(1);
        session.sent(e.rid(), e.id());
      }
    } else {
      Refusal r = Refusal.of(error, session.loggedIn);
      switch (r.kind()) {
        case PERMANENT:
          if (outbox.reject(e.id()).isPresent()) {
            release(1);
            session.error("message " + e.id() + " to room " + e.rid() + " rejected: " + r.message());
          }
          break;
        case HOLD:
          requeue(e);
          session.pacer.hold("sendMessage", r.timeToReset());
          schedule(Duration.ZERO);
          break;
        case TEMPORARY:
          requeue(e);
          schedule(session.settings.retryDelay(++attempts));
          break;
        case LOST:
          session.connectionLost();
          requeue(e);
          schedule(Duration.ZERO); // waits behind the gate until logged in again
          break;
        case NEEDS_LOGIN:
          requeue(e);
          schedule(Duration.ZERO); // waits behind the gate until logged in again
          break;
        default:
          throw new AssertionError("Unexpected refusal: " + r.kind());
      }
    }
    if (outbox.isEmpty()) {
      session.flushed();
    }
    session.status.refresh();
  }

  private void requeue(Outbox.Entry e) {
    outbox.requeue(e.id());
    session.resends++;
  }
}
