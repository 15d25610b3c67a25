package dev.ddpkit.chat.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A held session, once resumed, forwards what is still written to it to the connection that
 * resumed it: a broadcast that meets that connection closed goes on to the others, a queue that
 * overflows there ends the session that holds it (and only that one), and a resume onto a socket
 * already closing still completes.
 */
class SessionForwardTest {
  private static final InetSocketAddress PEER = new InetSocketAddress("127.0.0.1", 40000);

  /** A session held with its own overflow counter, and the session that resumed it. */
  private final AtomicInteger heldOverflows = new AtomicInteger();
  private final Session held = new Session(1, new InProcessServer.FakeConnection(PEER), 0, null);
  private final InProcessServer.FakeConnection nextSocket =
      new InProcessServer.FakeConnection(PEER);
  private final Session next = new Session(2, nextSocket, 0, null);

  private void resume() {
    held.hold(100, heldOverflows::incrementAndGet);
    assertThat(held.resumeOn(next, 0, "{\"msg\":\"connected\"}")).isTrue();
  }

  @Test
  void aBroadcastForwardedToAClosedConnectionIsDroppedWithoutFailingTheBroadcast() {
    resume();
    nextSocket.closed = true;
    List<Session> overflowed = new ArrayList<>();

    assertThat(held.countForBroadcast("{\"msg\":\"changed\"}", overflowed::add)).isNull();

    assertThat(overflowed).isEmpty();
    assertThat(nextSocket.sent()).containsExactly("{\"msg\":\"connected\"}");
  }

  @Test
  void anOverflowOfTheQueueItWasForwardedToEndsTheSessionHoldingIt() {
    resume();
    AtomicInteger nextOverflows = new AtomicInteger();
    next.hold(1, nextOverflows::incrementAndGet); // the resumed connection dropped in turn

    assertThat(held.write("{\"msg\":\"a\"}", true)).isEqualTo(Session.Write.HELD);
    assertThat(held.write("{\"msg\":\"b\"}", true)).isEqualTo(Session.Write.OVERFLOW);
    held.overflowed();

    assertThat(nextOverflows).hasValue(1);
    assertThat(heldOverflows).hasValue(0);
  }

  @Test
  void anOverflowReportedAfterTheSessionWasResumedEndsNothing() {
    held.hold(1, heldOverflows::incrementAndGet);
    assertThat(held.write("{\"msg\":\"a\"}", true)).isEqualTo(Session.Write.HELD);
    assertThat(held.write("{\"msg\":\"b\"}", true)).isEqualTo(Session.Write.OVERFLOW);
    // Before the writer reports it, the session is resumed (its queue replayed) and the
    // connection that resumed it drops and is held in turn, its queue well under the limit.
    assertThat(held.resumeOn(next, 0, "{\"msg\":\"connected\"}")).isTrue();
    AtomicInteger nextOverflows = new AtomicInteger();
    next.hold(100, nextOverflows::incrementAndGet);

    held.overflowed();

    assertThat(heldOverflows).hasValue(0);
    assertThat(nextOverflows).hasValue(0);
    assertThat(nextSocket.sent()).containsExactly("{\"msg\":\"connected\"}",
        "{\"msg\":\"a\"}", "{\"msg\":\"b\"}");
  }

  @Test
  void aResumeOntoASocketAlreadyClosingCompletesAndItsCountIsAheadOfTheClient() {
    held.hold(100, heldOverflows::incrementAndGet);
    held.write("{\"msg\":\"a\"}", true);
    nextSocket.closed = true;

    assertThat(held.resumeOn(next, 0, "{\"msg\":\"connected\"}")).isTrue();

    assertThat(nextSocket.sent()).isEmpty();
    // connected and the replay count as written: a later resume naming 0 frames is refused.
    assertThat(next.sentCount()).isEqualTo(2);
  }

  @Test
  void aConnectionThatDropsBeforeItsResumeIsWrittenHoldsTheWholeSessionAndNoStaleConnected() {
    held.hold(100, heldOverflows::incrementAndGet);
    held.write("{\"msg\":\"a\"}", true);
    // The resuming connection's socket dropped already, and its close held it (it was connected).
    AtomicInteger nextOverflows = new AtomicInteger();
    next.hold(100, nextOverflows::incrementAndGet);

    assertThat(held.resumeOn(next, 0, "{\"msg\":\"connected\"}")).isTrue();

    // It holds the session's book and streams, and the broadcasts' entries now point at it.
    assertThat(next.methods).isSameAs(held.methods);
    assertThat(next.streams).isSameAs(held.streams);
    assertThat(next.streams.current).isSameAs(next);
    assertThat(nextSocket.sent()).isEmpty();
    // The next resume gets the replay after its own connected, not the one the client never saw.
    InProcessServer.FakeConnection thirdSocket = new InProcessServer.FakeConnection(PEER);
    Session third = new Session(3, thirdSocket, 0, null);
    assertThat(next.resumeOn(third, 0, "{\"msg\":\"connected\",\"n\":3}")).isTrue();
    assertThat(thirdSocket.sent()).containsExactly("{\"msg\":\"connected\",\"n\":3}",
        "{\"msg\":\"a\"}");
    assertThat(third.streams).isSameAs(held.streams);
    assertThat(third.sentCount()).isEqualTo(2);
  }
}
