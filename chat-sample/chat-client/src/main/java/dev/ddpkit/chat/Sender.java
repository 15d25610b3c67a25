package dev.ddpkit.chat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sends the outbox, oldest first, once logged in, within the {@code sendMessage} budget. Each
 * message keeps its client-chosen {@code _id} across re-sends, so the server stores it once; a
 * result with no result field (Rocket.Chat's answer to an {@code _id} it already has) counts as
 * delivered. No message carries a time stamp: the server stamps it when it arrives, however long
 * it waited offline. A send held back is retried at the server's {@code timeToReset}, one lost with
 * the connection after the next login, and one failing for now after the retry backoff: the whole
 * outbox waits for it (on one timer, so order is kept and no other send job can skip the wait).
 */
final class Sender {
  private static final String SEND = "sendMessage";
  /** The outbox's retry timer: a pacer key with no budget. */
  private static final String RETRY = Pacer.TIMER + "outbox-retry";

  private final ChatSession session;
  private final Outbox outbox;
  /** Slots taken by {@link ChatClient#sendMessage} on the caller's thread, freed here. */
  private final AtomicInteger slots = new AtomicInteger();
  /** Send jobs waiting in the pacer: each takes the oldest queued message when it goes. */
  private final List<Pacer.Job> jobs = new ArrayList<>();
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

  void onLoggedIn() {
    schedule();
  }

  /** One send job per queued message not yet covered by one, unless the outbox backs off. */
  private void schedule() {
    jobs.removeIf(j -> !Pacer.waiting(j));
    if (Pacer.waiting(retryJob)) {
      return; // retryDue() schedules again
    }
    while (jobs.size() < outbox.queuedCount()) {
      jobs.add(session.pacer.submit(SEND, null, this::sendOldest));
    }
  }

  private void sendOldest() {
    if (!session.loggedIn) {
      schedule(); // the gate reopens at the next login
      return;
    }
    outbox.takeOldest().ifPresent(e -> {
      Map<String, Object> msg = Map.of("_id", e.id(), "rid", e.rid(), "msg", e.text());
      session.call(SEND, List.of(msg)).whenComplete((result, error) -> onAnswer(e, error));
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
    jobs.forEach(session.pacer::cancel);
    jobs.clear();
    Duration d = session.settings.retryDelay(++attempts);
    retryJob = session.pacer.submitAfter(RETRY, null, d, this::retryDue);
  }

  private void retryDue() {
    retryJob = null;
    schedule();
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
          session.pacer.hold(SEND, r.timeToReset());
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
    session.status.refresh();
  }

  private void requeue(Outbox.Entry e) {
    outbox.requeue(e.id());
    session.resends++;
  }
}
