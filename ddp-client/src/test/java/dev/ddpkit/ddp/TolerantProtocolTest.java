package dev.ddpkit.ddp;

import static dev.ddpkit.ddp.Futures.failure;
import static dev.ddpkit.ddp.memory.ServerEnd.json;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import dev.ddpkit.ddp.memory.ServerEnd;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

/**
 * The default, tolerant reading of the server's frames: what is odd but harmless is counted and
 * dropped and the connection stays; the well-known deviations are read as what they mean; what
 * would corrupt the client's state still drops the connection, and the redial backs off.
 */
@Timeout(value = 30, unit = SECONDS)
class TolerantProtocolTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"msg\":\"result\",",
        "[1,2,3]",
        "\"just a string\"",
        "",
        "{\"msg\":42}",
        "{\"no\":\"msg\"}",
        "{\"msg\":\"result\",\"id\":1,\"result\":2}",
        "{\"msg\":\"ready\",\"subs\":\"abc\"}",
        "{\"msg\":\"added\",\"collection\":\"c\",\"id\":\"1\",\"fields\":\"x\"}",
        "{\"msg\":\"changed\",\"collection\":\"c\",\"id\":\"1\",\"cleared\":\"x\"}",
        "{\"msg\":\"nosub\",\"id\":{}}",
        "{\"msg\":\"nosub\",\"error\":\"boom\"}",
        "{\"msg\":\"updated\",\"methods\":{}}",
        "{\"msg\":\"ping\"} trailing"
      })
  void invalidFrameIsCountedAndDroppedAndTheConnectionStays(String frame) {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      Subscription sub = h.client.subscribe("feed");
      CompletableFuture<JsonNode> retried = h.client.call("retried");
      CompletableFuture<JsonNode> once =
          h.client.call("once", List.of(), CallOptions.DEFAULT.withNoRetry(true));
      s.drain();

      s.sendRaw(frame);

      assertThat(h.client.stats().protocolErrors()).isEqualTo(1);
      assertThat(h.client.stats().protocolDrops()).isZero();
      assertThat(h.client.stats().lastProtocolError()).isNotEmpty().doesNotContain("trailing");
      assertThat(s.closedByClient()).isFalse();
      assertThat(once).isNotDone();
      s.send("{'msg':'result','id':'1','result':true}");
      s.send("{'msg':'result','id':'2','result':false}");
      s.send("{'msg':'ready','subs':['" + sub.id() + "']}");
      assertThat(retried).isCompletedWithValue(json("true"));
      assertThat(once).isCompletedWithValue(json("false"));
      assertThat(sub.ready()).isCompleted();
      assertThat(h.net.count()).isEqualTo(1);
      assertThat(h.client.status().connected()).isTrue();
    }
  }

  @Test
  void updatedWithIdInsteadOfMethodsIsReadAsUpdatedForThatCall() {
    try (Harness h = new Harness()) {
      ServerEnd s1 = h.connect("s1");
      CompletableFuture<JsonNode> call = h.client.call("slow");
      s1.drain();
      ServerEnd s2 = h.dropAndReconnect(s1, "s1", "s2");
      s2.expect("{'msg':'method','method':'slow','params':[],'id':'1'}");
      s2.send("{'msg':'result','id':'1','result':7}");
      assertThat(h.client.isResyncing()).as("waiting for 'updated'").isTrue();

      s2.send("{'msg':'updated','id':'1'}");

      assertThat(call).isCompletedWithValue(json("7"));
      assertThat(h.client.isResyncing()).isFalse();
      assertThat(h.client.stats().deviations()).isEqualTo(1);
      assertThat(h.client.stats().protocolErrors()).isZero();
      assertThat(s2.closedByClient()).isFalse();
    }
  }

  @Test
  void methodErrorWithoutMsgFailsThatCallWithTheServersError() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      CompletableFuture<JsonNode> first = h.client.call("a");
      CompletableFuture<JsonNode> second = h.client.call("b");
      CompletableFuture<JsonNode> third = h.client.call("c");
      s.drain();

      s.send("{'id':'1','error':{'error':500,'reason':'Internal server error'}}");
      s.send("{'id':'2','error':{'error':'not-allowed','reason':'no'},'extra':1}");
      s.send("{'id':'3','error':'boom'}");

      DdpMethodException e = failure(first, DdpMethodException.class);
      assertThat(e.error()).isEqualTo("500");
      assertThat(e.reason()).isEqualTo("Internal server error");
      assertThat(failure(second, DdpMethodException.class).error()).isEqualTo("not-allowed");
      assertThat(failure(third, DdpMethodException.class).error()).isEqualTo("boom");
      assertThat(h.client.stats().deviations()).isEqualTo(3);
      assertThat(h.client.stats().serverErrors()).isZero();
      assertThat(s.closedByClient()).isFalse();
    }
  }

  @Test
  void aDeviationForAnUnknownCallIsCountedAndIgnored() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      s.send("{'id':'99','error':{'error':500}}");
      assertThat(h.client.stats().deviations()).isEqualTo(1);
      assertThat(h.client.stats().protocolErrors()).isEqualTo(1);
      assertThat(h.client.stats().lastProtocolError()).contains("unknown method id");
      assertThat(s.closedByClient()).isFalse();
    }
  }

  @Test
  void extraFieldsAreIgnoredAndTheMessageHandled() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      CompletableFuture<JsonNode> call = h.client.call("a");
      s.drain();
      s.send("{'msg':'result','id':'1','result':2,'server':'x','timestamp':12}");
      s.send("{'msg':'added','collection':'c','id':'d','fields':{'a':1},'extra':[1]}");
      assertThat(call).isCompletedWithValue(json("2"));
      assertThat(h.client.collection("c").size()).isEqualTo(1);
      assertThat(h.client.stats().protocolErrors()).isZero();
      assertThat(h.client.stats().deviations()).isZero();
    }
  }

  @Test
  void connectedInTheMiddleOfASessionDropsTheConnectionInBothModes() {
    for (boolean strict : new boolean[] {false, true}) {
      try (Harness h = new Harness(b -> b.strictProtocol(strict))) {
        ServerEnd s = h.connect("s1");
        s.send("{'msg':'connected','session':'s9'}");
        assertThat(s.closedByClient()).as("strict=%s", strict).isTrue();
        assertThat(s.clientCloseCode()).isEqualTo(1002);
        assertThat(h.client.stats().protocolDrops()).isEqualTo(1);
      }
    }
  }

  @Test
  void aProtocolDropBacksOffAndTheStatusSaysWhy() {
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      s.send("{'msg':'connected','session':'s9'}");

      DdpStatus st = h.client.status();
      assertThat(st.state()).isEqualTo(DdpStatus.State.WAITING);
      assertThat(st.attempt()).isEqualTo(1);
      assertThat(st.reason()).contains("protocol error").contains("'connected' in the middle");
      h.time.advance(Duration.ofMillis(999));
      assertThat(h.net.count()).as("no redial before the backoff").isEqualTo(1);
      ServerEnd s2 = h.redial();
      h.handshake(Harness.connectNamingSession("s1") /* a protocol drop: no resume */, "s2");
      s2.send("{'msg':'connected','session':'s10'}");
      assertThat(h.client.status().attempt())
          .as("not reset: the connection did not stay up")
          .isEqualTo(2);
    }
  }

  @Test
  void warningsAboutTheServersFramesAreRateLimitedButEveryFrameIsCounted() {
    Logger logger = (Logger) LoggerFactory.getLogger(DdpClient.class);
    Level saved = logger.getLevel();
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    logger.setLevel(Level.INFO);
    try (Harness h = new Harness(b -> b.heartbeatInterval(Duration.ZERO))) {
      ServerEnd s = h.connect("s1");
      for (int i = 0; i < 100; i++) {
        s.send("{'msg':'teleport'}");
      }
      assertThat(h.client.stats().protocolErrors()).isEqualTo(100);
      assertThat(warnings(appender)).hasSize(WarnLimiter.BURST);

      h.time.advance(WarnLimiter.WINDOW);
      s.send("{'msg':'teleport'}");

      assertThat(warnings(appender)).hasSize(WarnLimiter.BURST + 1);
      assertThat(warnings(appender).get(WarnLimiter.BURST))
          .contains("90 similar warnings suppressed");
    } finally {
      logger.detachAppender(appender);
      logger.setLevel(saved);
    }
  }

  private static List<String> warnings(ListAppender<ILoggingEvent> appender) {
    return appender.list.stream()
        .filter(e -> e.getLevel() == Level.WARN)
        .map(ILoggingEvent::getFormattedMessage)
        .filter(m -> m.contains("teleport"))
        .toList();
  }
}
