package dev.ddpkit.reconnect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Records, in one queue and in order, what a {@link ReconnectionManager} does: every dial of the
 * {@link Connector}, every status a {@link ReconnectListener} sees, every credentials refresh. Tests
 * take the events one by one and end with {@link #assertExhausted()} (a transcript, in the manner
 * of OkHttp's WebSocketRecorder).
 *
 * <p>Statuses are written compactly: {@code WAITING #2 delay=2500ms at=3750ms (closed 1006)}, with
 * {@code delay} only when not zero, {@code at} (the next-try time) only while waiting, and flags
 * {@code [offline]} / {@code [suspended]}. Dials are written {@code dial #2 at=3750ms}; the latest
 * dial's {@link Attempt} is kept so a test can report on it as that dial's socket would.
 */
final class ReconnectRecorder implements Connector, ReconnectListener {
  private final Ticker ticker;
  private final Deque<Object> events = new ArrayDeque<>();
  private final List<Integer> dials = new ArrayList<>();
  private final Deque<Exception> dialFailures = new ArrayDeque<>();
  private Runnable onDial = () -> {};
  private Attempt latest;

  ReconnectRecorder(Ticker ticker) {
    this.ticker = ticker;
  }

  /** Makes the next dial throw {@code e} (after it is recorded). */
  ReconnectRecorder failNextDial(Exception e) {
    dialFailures.add(e);
    return this;
  }

  /** Runs {@code action} inside every later dial, after recording it. */
  ReconnectRecorder onDial(Runnable action) {
    this.onDial = action;
    return this;
  }

  @Override
  public synchronized void connect(Attempt attempt) throws Exception {
    events.add("dial #" + attempt.number() + " at=" + format(ticker.read()));
    dials.add(attempt.number());
    latest = attempt;
    onDial.run();
    Exception e = dialFailures.poll();
    if (e != null) {
      throw e;
    }
  }

  @Override
  public synchronized void onStatus(ReconnectStatus status) {
    events.add(status);
  }

  /** A credentials refresher that records itself. */
  Runnable refresher() {
    return () -> {
      synchronized (this) {
        events.add("refresh at=" + format(ticker.read()));
      }
    };
  }

  /** The attempt of the latest dial, to report on as its socket would. */
  synchronized Attempt attempt() {
    if (latest == null) {
      fail("no dial yet");
    }
    return latest;
  }

  synchronized List<Integer> dials() {
    return List.copyOf(dials);
  }

  /** Takes the next event as text. */
  synchronized String next() {
    Object e = events.poll();
    if (e == null) {
      fail("no more events");
    }
    return e instanceof ReconnectStatus s ? describe(s) : (String) e;
  }

  /** Takes the next event, which must be a status, and returns it. */
  synchronized ReconnectStatus nextStatus() {
    Object e = events.poll();
    if (!(e instanceof ReconnectStatus s)) {
      throw new AssertionError("expected a status but got " + e);
    }
    return s;
  }

  /** Asserts the next events, in order, as text. */
  void expect(String... expected) {
    List<String> actual = new ArrayList<>();
    for (int i = 0; i < expected.length; i++) {
      if (isEmpty()) {
        fail("expected %s but the transcript ended after %s", List.of(expected), actual);
      }
      actual.add(next());
    }
    assertThat(actual).containsExactly(expected);
  }

  /** Asserts the next event is a status in {@code state} with {@code attempt}, and returns it. */
  ReconnectStatus expectStatus(ReconnectionManager.State state, int attempt) {
    ReconnectStatus s = nextStatus();
    assertThat(s.state()).as("state of %s", describe(s)).isEqualTo(state);
    assertThat(s.attempt()).as("attempt of %s", describe(s)).isEqualTo(attempt);
    return s;
  }

  /** Asserts the next event is a dial of {@code attempt} at the current virtual time. */
  void expectDial(int attempt) {
    assertThat(next()).isEqualTo("dial #" + attempt + " at=" + format(ticker.read()));
  }

  synchronized boolean isEmpty() {
    return events.isEmpty();
  }

  /** Asserts that every event was taken. */
  synchronized void assertExhausted() {
    List<String> left = new ArrayList<>();
    for (Object e : events) {
      left.add(e instanceof ReconnectStatus s ? describe(s) : (String) e);
    }
    assertThat(left).as("events left in the transcript").isEmpty();
  }

  static String describe(ReconnectStatus s) {
    StringBuilder b = new StringBuilder().append(s.state()).append(" #").append(s.attempt());
    if (!s.delay().isZero()) {
      b.append(" delay=").append(format(s.delay().toNanos()));
    }
    if (s.state() == ReconnectionManager.State.WAITING) {
      b.append(" at=").append(format(s.nextAttemptAtNanos()));
    }
    if (!s.reason().isEmpty()) {
      b.append(" (").append(s.reason()).append(')');
    }
    if (s.networkLost()) {
      b.append(" [offline]");
    }
    if (s.suspended()) {
      b.append(" [suspended]");
    }
    return b.toString();
  }

  static String format(long nanos) {
    return nanos % 1_000_000 == 0 ? nanos / 1_000_000 + "ms" : nanos + "ns";
  }

  static String format(Duration d) {
    return format(d.toNanos());
  }
}
