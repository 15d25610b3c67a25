package dev.ddpkit.chat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The server's one-way life, without a server: each move allowed once, in order. */
class LifecycleTest {
  @Test
  void startsOnceRunsThenStopsOnce() {
    Lifecycle life = new Lifecycle();
    assertThatThrownBy(life::requireRunning).hasMessageContaining("not running: NEW");
    life.beginStart();
    assertThatThrownBy(life::beginStart).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("started once; it is STARTING");
    life.started();
    life.requireRunning();
    assertThat(life.beginStop()).as("the first stop does it").isTrue();
    assertThatThrownBy(life::requireRunning).hasMessageContaining("not running: STOPPING");
    life.terminated();
    assertThat(life.beginStop()).as("a second stop has nothing to do").isFalse();
    assertThatThrownBy(life::beginStart).hasMessageContaining("it is TERMINATED");
  }

  @Test
  void aServerStoppedBeforeItStartedCannotStart() {
    Lifecycle life = new Lifecycle();
    assertThat(life.beginStop()).isFalse();
    assertThatThrownBy(life::beginStart).hasMessageContaining("it is TERMINATED");
  }

  @Test
  void aFailedStartEndsTheLife() {
    Lifecycle life = new Lifecycle();
    life.beginStart();
    life.terminated();
    assertThat(life.beginStop()).isFalse();
    assertThatThrownBy(life::requireRunning).hasMessageContaining("not running: TERMINATED");
  }
}
