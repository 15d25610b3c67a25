package dev.ddpkit.ddp;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.ddpkit.ddp.memory.ServerEnd;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/** No password or token in any log line, even at DEBUG, and none in toString(). */
@Timeout(value = 30, unit = SECONDS)
class RedactionTest {

  @Test
  void loginParamsAndResultsNeverReachTheLogs() {
    Logger logger = (Logger) LoggerFactory.getLogger(DdpClient.class);
    Level saved = logger.getLevel();
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    logger.setLevel(Level.DEBUG);
    try (Harness h = new Harness()) {
      ServerEnd s = h.connect("s1");
      var login =
          h.client.call(
              "login",
              List.of(Map.of("user", Map.of("username", "ann"), "password", "hunter2")),
              CallOptions.WAIT);
      s.send("{'msg':'result','id':'1','result':{'id':'u1','token':'tok-SECRET'}}");
      s.send("{'msg':'error','reason':'bad','offendingMessage':{'params':['hunter2']}}");
      s.sendRaw("{\"msg\":\"method\",\"params\":[\"hunter2\"");
      assertThat(login).isCompleted();
      assertThat(h.client.toString()).doesNotContain("hunter2");
    } finally {
      logger.detachAppender(appender);
      logger.setLevel(saved);
    }
    assertThat(appender.list).isNotEmpty();
    assertThat(appender.list)
        .extracting(ILoggingEvent::getFormattedMessage)
        .noneMatch(m -> m.contains("hunter2") || m.contains("tok-SECRET"))
        .anyMatch(m -> m.contains("method login id=1 params=[redacted]"));
  }
}
