package dev.ddpkit.bench.throughput;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddpkit.chat.ChatMessage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The in-memory path the JMH benchmark drives delivers each message once, on both loops. */
class InboundPipelineTest {
  private final MessageMix mix = MessageMix.generate(3_000, 3, 0.05, 11);

  @Test
  @Timeout(value = 30, unit = SECONDS)
  void sameThreadDeliversEveryMessageOnce() {
    List<ChatMessage> got = new CopyOnWriteArrayList<>();
    try (InboundPipeline p = InboundPipeline.sameThread(mix.rooms(), got::add)) {
      mix.frames().forEach(p::push);
      check(p, got);
    }
  }

  @Test
  @Timeout(value = 30, unit = SECONDS)
  void defaultLoopDeliversEveryMessageOnce() {
    List<ChatMessage> got = new CopyOnWriteArrayList<>();
    try (InboundPipeline p = InboundPipeline.onDefaultLoop(mix.rooms(), got::add)) {
      mix.frames().forEach(p::push);
      p.awaitDelivered(mix.uniqueCount(), Duration.ofSeconds(20));
      check(p, got);
    }
  }

  @Test
  @Timeout(value = 30, unit = SECONDS)
  void framesAsBytesAreDeliveredOnceAsTheTransportHandsThem() {
    List<ChatMessage> got = new CopyOnWriteArrayList<>();
    try (InboundPipeline p = InboundPipeline.onDefaultLoop(mix.rooms(), got::add)) {
      mix.frames().forEach(f -> p.pushUtf8(f.getBytes(StandardCharsets.UTF_8)));
      p.awaitDelivered(mix.uniqueCount(), Duration.ofSeconds(20));
      check(p, got);
    }
  }

  private void check(InboundPipeline p, List<ChatMessage> got) {
    assertThat(p.delivered()).isEqualTo(mix.uniqueCount());
    assertThat(got).hasSize(mix.uniqueCount());
    assertThat(got.stream().map(ChatMessage::id).distinct().count()).isEqualTo(mix.uniqueCount());
    assertThat(p.malformed()).isZero();
    assertThat(p.protocolErrors()).isZero();
  }
}
