package dev.ddpkit.chat.server;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Many connections sending at once: every message is stored once, every subscriber sees every
 * message exactly once and in ts order, and a catch-up query returns the same sequence.
 */
@Timeout(value = 60, unit = SECONDS)
class ConcurrentSendersTest extends ServerTestSupport {

  @Test
  void subscribersSeeEveryMessageOnceInTsOrder() throws Exception {
    // 150 pipelined sends per user: far past Rocket.Chat's 5 per second, on purpose.
    ChatServer s = startSeeded(b -> b.rateLimits(RateLimits.none()));
    int senders = 8;
    int perSender = 150;
    DdpPeer watcher = login(s, "carol");
    watcher.subscribe("general");
    watcher.next("ready");
    List<DdpPeer> peers = new ArrayList<>();
    for (int i = 0; i < senders; i++) {
      peers.add(login(s, i % 2 == 0 ? "alice" : "bob"));
    }
    long t0 = System.nanoTime();
    // Pipelined: each sender fires all its calls, then collects the answers.
    List<List<String>> calls = new ArrayList<>();
    for (int i = 0; i < senders; i++) {
      List<String> ids = new ArrayList<>();
      for (int j = 0; j < perSender; j++) {
        ids.add(peers.get(i).sendMethod("sendMessage",
            DdpPeer.message("c" + i + "-" + j, "general", "text " + j)));
      }
      calls.add(ids);
    }
    for (int i = 0; i < senders; i++) {
      for (String id : calls.get(i)) {
        DdpPeer p = peers.get(i);
        assertThat(p.next(f -> DdpPeer.isResult(f, id)).has("result")).isTrue();
      }
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    int total = senders * perSender;
    System.out.printf("%d acknowledged messages in %.2f s (%.0f/s)%n", total, seconds,
        total / seconds);

    long lastTs = 0;
    Set<String> seen = new HashSet<>();
    List<String> order = new ArrayList<>();
    for (int k = 0; k < total; k++) {
      JsonNode msg = watcher.next("changed").path("fields").path("args").get(0);
      long ts = msg.path("ts").path("$date").asLong();
      assertThat(ts).isGreaterThan(lastTs);
      lastTs = ts;
      assertThat(seen.add(msg.path("_id").asText())).isTrue();
      order.add(msg.path("_id").asText());
    }
    assertThat(s.messageCount("general")).isEqualTo(total);
    JsonNode all = watcher.call("loadMissedMessages", "general", DdpPeer.date(0)).path("result");
    List<String> stored = new ArrayList<>();
    all.forEach(m -> stored.add(m.path("_id").asText()));
    assertThat(stored).isEqualTo(order);
  }
}
