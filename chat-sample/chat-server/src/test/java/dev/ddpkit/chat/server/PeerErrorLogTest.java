package dev.ddpkit.chat.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.ddpkit.reconnect.VirtualScheduler;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The log of bad input on virtual time: a transcript of what is logged, per address and in all. */
class PeerErrorLogTest {
  private final VirtualScheduler time = new VirtualScheduler();
  private final PeerErrorLog errors = new PeerErrorLog(time);
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger(PeerErrorLog.class);

  @BeforeEach
  void capture() {
    logged.start();
    logger.addAppender(logged);
  }

  @AfterEach
  void release() {
    logger.detachAppender(logged);
    logged.stop();
  }

  @Test
  void anAddressGetsItsLinesAMinuteThenANoticeThenTheCountNextMinute() throws Exception {
    InetAddress a = InetAddress.getByName("192.0.2.1");
    for (int i = 0; i < 50; i++) {
      errors.closed(a, 1002, "bad frame " + i);
    }
    assertThat(lines()).hasSize(PeerErrorLog.LINES_PER_ADDRESS + 1);
    assertThat(lines().get(0)).isEqualTo("closed a connection from 192.0.2.1 with 1002: bad frame 0");
    assertThat(lines().get(PeerErrorLog.LINES_PER_ADDRESS)).contains("192.0.2.1", "not logged");
    assertThat(logged.list).allMatch(e -> e.getThrowableProxy() == null);

    time.advance(Duration.ofSeconds(59));
    errors.closed(a, 1002, "still in the minute");
    assertThat(lines()).hasSize(PeerErrorLog.LINES_PER_ADDRESS + 1);

    time.advance(Duration.ofSeconds(1));
    errors.closed(a, 1007, "next minute");
    assertThat(lines()).hasSize(PeerErrorLog.LINES_PER_ADDRESS + 2).last().isEqualTo(
        "closed a connection from 192.0.2.1 with 1007: next minute"
            + " (46 more from it were not logged in the minute before)");
  }

  @Test
  void otherAddressesKeepTheirOwnLinesUntilTheBudgetOfAllIsSpent() throws Exception {
    errors.closed(InetAddress.getByName("192.0.2.1"), 1002, "x");
    for (int i = 0; i < 10; i++) {
      errors.closed(InetAddress.getByName("192.0.2.1"), 1002, "x");
    }
    errors.closed(InetAddress.getByName("192.0.2.2"), 1009, "y");
    assertThat(lines()).last().isEqualTo("closed a connection from 192.0.2.2 with 1009: y");

    for (int i = 0; i < 2 * PeerErrorLog.LINES_IN_ALL; i++) {
      errors.closed(InetAddress.getByName("198.51.100." + (i % 250)), 1002, "z");
    }
    assertThat(lines()).hasSize(PeerErrorLog.LINES_IN_ALL + 2); // one notice per address, one in all
    assertThat(lines()).last().asString().contains("more than " + PeerErrorLog.LINES_IN_ALL);
  }

  @Test
  void aLongDetailIsClipped() throws Exception {
    errors.closed(InetAddress.getByName("192.0.2.1"), 1002, "x".repeat(10_000));
    assertThat(lines()).singleElement().asString().hasSizeLessThan(300);
  }

  private List<String> lines() {
    return logged.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
  }
}
