package dev.ddpkit.chat.server;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.ddpkit.chat.server.testing.RawPeer;
import dev.ddpkit.chat.server.testing.WebSocketWire;
import dev.ddpkit.reconnect.VirtualScheduler;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * Frames a client must not send, over a raw socket: an unmasked frame is closed with 1002 (RFC
 * 6455 section 5.1; Java-WebSocket 1.6.0 accepted it), and a peer sending bad frames for ever gets
 * a few one-line WARNs a minute, not an ERROR with a stack trace per frame (16 lines in a few
 * seconds, when the library logged them).
 */
@Timeout(value = 60, unit = SECONDS)
class BadFramesClosedAndLoggedOnceTest extends ServerTestSupport {
  private static final byte[] CONNECT =
      "{\"msg\":\"connect\",\"version\":\"1\",\"support\":[\"1\"]}".getBytes(StandardCharsets.UTF_8);

  /** Mask keys, seeded: the same bytes on every run. */
  private final Random masks = new Random(6455);
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);

  @BeforeEach
  void capture() {
    logged.start();
    root.addAppender(logged);
  }

  @AfterEach
  void release() {
    root.detachAppender(logged);
    logged.stop();
  }

  @Test
  void anUnmaskedFrameIsClosedWith1002AndAMaskedOneIsServed() throws Exception {
    ChatServer s = startSeeded(b -> b);
    try (RawPeer c = RawPeer.upgraded(s.url())) {
      c.sendRaw(frame(1, /* fin= */ true, /* masked= */ false, CONNECT));
      assertThat(c.awaitCloseCode()).isEqualTo(1002);
    }
    try (RawPeer c = RawPeer.upgraded(s.url())) {
      c.sendRaw(frame(1, /* fin= */ true, /* masked= */ true, CONNECT));
      c.sendRaw(frame(8, /* fin= */ true, /* masked= */ true, new byte[] {0x03, (byte) 0xE8}));
      assertThat(c.awaitCloseCode()).as("a masked connect, then a close of ours").isEqualTo(1000);
    }
    assertThat(lines(PeerErrorLog.class)).singleElement().asString()
        .contains("127.0.0.1", "1002", "unmasked");
  }

  @Test
  void anUnmaskedFrameAfterMaskedOnesInTheSameWriteIsClosedWith1002() throws Exception {
    ChatServer s = startSeeded(b -> b);
    try (RawPeer c = RawPeer.upgraded(s.url())) {
      byte[] ping = "{\"msg\":\"ping\"}".getBytes(StandardCharsets.UTF_8);
      byte[] masked = frame(1, true, true, ping);
      byte[] unmasked = frame(1, true, false, ping);
      byte[] both = new byte[masked.length + unmasked.length];
      System.arraycopy(masked, 0, both, 0, masked.length);
      System.arraycopy(unmasked, 0, both, masked.length, unmasked.length);
      c.sendRaw(both);
      assertThat(c.awaitCloseCode()).isEqualTo(1002);
    }
  }

  @Test
  void manyBadFramesFromOneAddressLogABoundedNumberOfLinesWithNoStackTrace() throws Exception {
    VirtualScheduler time = new VirtualScheduler(); // the rate limit's minute never ends by itself
    ChatServer s = startSeeded(b -> b.ticker(time).scheduler(time));
    int attempts = 30;
    for (int i = 0; i < attempts; i++) {
      byte[] bad = switch (i % 3) {
        case 0 -> frame(1, true, /* masked= */ false, CONNECT); // our check
        case 1 -> frame(0x41, true, true, CONNECT); // RSV1: the library's check
        default -> frame(0, true, true, CONNECT); // a continuation of nothing: ours
      };
      try (RawPeer c = RawPeer.upgraded(s.url())) {
        c.sendRaw(bad);
        assertThat(c.awaitCloseCode()).as("attempt %d", i).isEqualTo(1002);
      }
    }
    List<String> lines = lines(PeerErrorLog.class);
    assertThat(lines).hasSize(PeerErrorLog.LINES_PER_ADDRESS + 1);
    assertThat(lines.get(lines.size() - 1)).contains("not logged");
    assertThat(events()).noneMatch(e -> e.getThrowableProxy() != null)
        .noneMatch(e -> e.getLevel().isGreaterOrEqual(Level.ERROR));

    time.advance(Duration.ofMinutes(1));
    try (RawPeer c = RawPeer.upgraded(s.url())) {
      c.sendRaw(frame(1, true, false, CONNECT));
      assertThat(c.awaitCloseCode()).isEqualTo(1002);
    }
    assertThat(lines(PeerErrorLog.class)).hasSize(PeerErrorLog.LINES_PER_ADDRESS + 2)
        .last().asString().contains((attempts - PeerErrorLog.LINES_PER_ADDRESS) + " more");
  }

  /** One frame, FIN as given, masked with a key of {@link #masks} or not masked at all. */
  private byte[] frame(int opcode, boolean fin, boolean masked, byte[] payload) {
    return WebSocketWire.encode(opcode, fin, masked, payload, masks);
  }

  private List<ILoggingEvent> events() {
    synchronized (logged) {
      return List.copyOf(logged.list);
    }
  }

  private List<String> lines(Class<?> source) {
    return events().stream().filter(e -> e.getLoggerName().equals(source.getName()))
        .map(ILoggingEvent::getFormattedMessage).toList();
  }
}
