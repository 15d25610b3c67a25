package dev.ddpkit.chat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The pure parts: the login limiter, secrets, builder validation. */
class UnitsTest {

  @Test
  void loginLimiterCountsFailuresInASlidingWindow() {
    LoginLimiter l = new LoginLimiter(3, 10_000, 100);
    l.failed("k", 1_000);
    l.failed("k", 2_000);
    assertThat(l.waitMillis("k", 2_500)).isZero();
    l.failed("k", 3_000);
    assertThat(l.waitMillis("k", 3_000)).isEqualTo(8_000);
    assertThat(l.waitMillis("k", 10_999)).isEqualTo(1);
    assertThat(l.waitMillis("k", 11_000)).isZero();
    assertThat(l.waitMillis("other", 3_000)).isZero();
    l.forget("k");
    assertThat(l.waitMillis("k", 3_000)).isZero();
  }

  @Test
  void loginLimiterForgetsTheLeastRecentlyUsedKeysPastItsBound() {
    LoginLimiter l = new LoginLimiter(1, 10_000, 2);
    l.failed("a", 0);
    l.failed("b", 0);
    l.failed("c", 0);
    assertThat(l.waitMillis("a", 1)).isZero();
    assertThat(l.waitMillis("c", 1)).isEqualTo(9_999);
  }

  @Test
  void passwordHashesAreSaltedAndVerifiedOnTheDigest() {
    Secrets s = new Secrets();
    String digest = Secrets.sha256Hex("pw");
    assertThat(digest).isEqualTo(
        "30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4");
    String h1 = s.hashDigest(digest);
    String h2 = s.hashDigest(digest);
    assertThat(h1).isNotEqualTo(h2).startsWith("pbkdf2-sha256$10000$").doesNotContain(digest);
    assertThat(s.verify(digest, h1)).isTrue();
    assertThat(s.verify(digest.toUpperCase(java.util.Locale.ROOT), h1)).isTrue();
    assertThat(s.verify(Secrets.sha256Hex("other"), h1)).isFalse();
    assertThat(s.verify(digest, null)).isFalse();
    assertThat(s.verify(digest, "garbage")).isFalse();
  }

  @Test
  void tokensAreLongRandomAndStoredUnderTheirHash() {
    Secrets s = new Secrets();
    String t = s.newToken();
    assertThat(t).matches("[A-Za-z0-9_-]{43}").isNotEqualTo(s.newToken());
    assertThat(Secrets.tokenKey(t)).isNotEqualTo(t).hasSize(43);
    assertThat(s.newId()).hasSize(17);
  }

  @Test
  void builderValidatesEachSetterAndRequiresADataDir() {
    ChatServerBuilder b = ChatServer.builder();
    assertThatThrownBy(() -> b.port(70_000)).hasMessageContaining("port");
    assertThatThrownBy(() -> b.acceptRate(-1)).hasMessageContaining("acceptRate");
    assertThatThrownBy(() -> b.heartbeatInterval(Duration.ZERO))
        .hasMessageContaining("heartbeatInterval");
    assertThatThrownBy(() -> b.heartbeatTimeout(null)).hasMessageContaining("heartbeatTimeout");
    assertThatThrownBy(() -> b.drainPeriod(Duration.ofSeconds(-1)))
        .hasMessageContaining("drainPeriod");
    assertThatThrownBy(() -> b.tokenTtl(Duration.ZERO)).hasMessageContaining("tokenTtl");
    assertThatThrownBy(() -> b.maxFrameBytes(10)).hasMessageContaining("maxFrameBytes");
    assertThatThrownBy(() -> b.acceptRate(-1)).hasMessageContaining("acceptRate");
    assertThatThrownBy(() -> b.acceptBurst(-1)).hasMessageContaining("acceptBurst");
    assertThatThrownBy(() -> b.host(" ")).hasMessageContaining("host");
    assertThatThrownBy(() -> b.dataDir(null)).hasMessageContaining("dataDir");
    assertThatThrownBy(() -> b.loginRateLimit(0, Duration.ofSeconds(1)))
        .hasMessageContaining("loginRateLimit");
    assertThatThrownBy(() -> b.addressLoginRateLimit(0, Duration.ofSeconds(1)))
        .hasMessageContaining("addressLoginRateLimit");
    assertThatThrownBy(() -> b.addressLoginRateLimit(1, Duration.ZERO))
        .hasMessageContaining("addressLoginRateLimit window");
    assertThatThrownBy(b::build).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("dataDir");
  }

  @Test
  void statsSnapshotsAreImmutable() {
    ChatServerStats s = new ChatServerStats(1, 2, 3, 4, 5, 6, 7,
        new java.util.HashMap<>(java.util.Map.of("r", 1)), 8, 9, 10, 11, 12, 13,
        new java.util.TreeMap<>(), new java.util.TreeMap<>(), 14, 15, 16);
    assertThat(s.subscriptions("r")).isEqualTo(1);
    assertThat(s.subscriptions("x")).isZero();
    assertThatThrownBy(() -> s.subscriptionsByRoom().put("y", 1))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> s.acceptsPerSecond().put(1L, 1))
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
