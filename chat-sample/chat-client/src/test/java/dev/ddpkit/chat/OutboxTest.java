package dev.ddpkit.chat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class OutboxTest {
  private static Outbox.Entry entry(String id) {
    return new Outbox.Entry(id, "general", "text " + id);
  }

  @Test
  void queuedMessagesGoOutOnceInWritingOrderUntilAcknowledged() {
    Outbox o = new Outbox(10);
    o.add(entry("a"));
    o.add(entry("b"));
    assertThat(o.takeQueued()).extracting(Outbox.Entry::id).containsExactly("a", "b");
    assertThat(o.takeQueued()).as("in flight: not taken twice").isEmpty();
    o.add(entry("c"));
    assertThat(o.takeQueued()).extracting(Outbox.Entry::id).containsExactly("c");
    assertThat(o.acknowledge("b")).isPresent();
    assertThat(o.acknowledge("b")).as("a second acknowledgement is ignored").isEmpty();
    assertThat(o.size()).isEqualTo(2);
    assertThat(o.inFlightCount()).isEqualTo(2);
  }

  @Test
  void aFailedSendIsRequeuedWithTheSameId() {
    Outbox o = new Outbox(10);
    o.add(entry("a"));
    o.takeQueued();
    o.requeue("a");
    assertThat(o.isInFlight("a")).isFalse();
    assertThat(o.queuedCount()).isEqualTo(1);
    assertThat(o.takeQueued()).extracting(Outbox.Entry::id).containsExactly("a");
    o.acknowledge("a");
    assertThat(o.isEmpty()).isTrue();
  }

  @Test
  void anEditWaitsBehindItsMessageAndARequeuedSendKeepsItsPlace() {
    Outbox o = new Outbox(10);
    o.add(entry("a"));
    o.add(new Outbox.Entry(Outbox.Kind.EDIT, "edit-a", "a", "general", "a, edited"));
    o.add(entry("b"));
    o.add(new Outbox.Entry(Outbox.Kind.EDIT, "edit-c", "c", "general", "c, edited"));
    assertThat(o.queuedCount(Outbox.Kind.SEND)).isEqualTo(2);
    assertThat(o.queuedCount(Outbox.Kind.EDIT)).isEqualTo(2);

    assertThat(o.takeOldestReady(Outbox.Kind.EDIT)).map(Outbox.Entry::key)
        .as("a's edit waits for a's send; c's has no older entry").contains("edit-c");
    assertThat(o.takeOldestReady(Outbox.Kind.SEND)).map(Outbox.Entry::id).contains("a");
    assertThat(o.takeOldestReady(Outbox.Kind.SEND)).map(Outbox.Entry::id).contains("b");
    assertThat(o.takeOldestReady(Outbox.Kind.SEND)).isEmpty();
    assertThat(o.takeOldestReady(Outbox.Kind.EDIT)).as("a's send still in flight").isEmpty();

    o.requeue("b");
    o.requeue("a");
    assertThat(o.queuedCount(Outbox.Kind.SEND)).isEqualTo(2);
    assertThat(o.takeOldestReady(Outbox.Kind.SEND)).map(Outbox.Entry::id)
        .as("requeued in writing order, not requeue order").contains("a");
    o.acknowledge("a");
    assertThat(o.takeOldestReady(Outbox.Kind.EDIT)).map(Outbox.Entry::key).contains("edit-a");
    assertThat(o.queuedCount(Outbox.Kind.EDIT)).isZero();
    assertThat(o.inFlightCount()).isEqualTo(2); // edit-c, edit-a
    assertThat(o.queuedCount()).isEqualTo(1); // b
  }

  @Test
  void itIsBounded() {
    Outbox o = new Outbox(2);
    o.add(entry("a"));
    o.add(entry("b"));
    assertThat(o.isFull()).isTrue();
    assertThatThrownBy(() -> o.add(entry("c")))
        .isInstanceOf(OutboxFullException.class)
        .hasMessageContaining("2 messages");
    o.reject("a");
    o.add(entry("c"));
    assertThat(o.size()).isEqualTo(2);
  }

  @Test
  void duplicateIdsAndBadCapacityAreRefused() {
    Outbox o = new Outbox(2);
    o.add(entry("a"));
    assertThatThrownBy(() -> o.add(entry("a"))).hasMessageContaining("duplicate message id");
    assertThatThrownBy(() -> new Outbox(0)).hasMessageContaining("capacity");
  }
}
