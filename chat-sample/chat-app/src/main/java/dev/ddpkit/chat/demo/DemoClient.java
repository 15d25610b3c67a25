package dev.ddpkit.chat.demo;

import dev.ddpkit.chat.ChatClient;
import dev.ddpkit.chat.ChatListener;
import dev.ddpkit.chat.ChatMessage;
import dev.ddpkit.chat.ChatStatus;
import dev.ddpkit.chat.OutboxFullException;
import dev.ddpkit.reconnect.Backoff;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** One simulated user of the {@link Demo}: a chat client and what it saw. */
final class DemoClient implements ChatListener {
  final int index;
  final String rid;
  final ChatClient client;
  private final Demo demo;
  private final List<ChatStatus> statuses = new ArrayList<>();
  private final List<long[]> timeline = new ArrayList<>(); // {nanos, index into statuses}
  private volatile boolean connected;
  private volatile long connectedAtNanos;
  private volatile boolean heardAfterRestart;
  /** This writer's messages not deleted (yet), oldest first; the writer thread only. */
  private final List<String> mine = new ArrayList<>();
  private final java.util.concurrent.atomic.AtomicInteger edits =
      new java.util.concurrent.atomic.AtomicInteger();

  DemoClient(int index, String rid, String url, Backoff backoff, String password, Demo demo) {
    this.index = index;
    this.rid = rid;
    this.demo = demo;
    this.client =
        ChatClient.builder()
            .url(url)
            .username(Demo.user(index))
            .password(password)
            .room(rid)
            .backoff(backoff)
            .stableAfter(Duration.ofSeconds(2))
            .heartbeatInterval(Duration.ofSeconds(5))
            .heartbeatTimeout(Duration.ofSeconds(5))
            .outboxCapacity(200)
            .historyLimit(10)
            .listener(this)
            .name("demo-" + Demo.user(index))
            .build();
  }

  boolean ready() {
    return connected && client.joinedRooms().contains(rid);
  }

  boolean recovered() {
    return connected && connectedAtNanos > demo.restartAtNanos();
  }

  boolean heardAfterRestart() {
    return heardAfterRestart;
  }

  void write() {
    String text = "message " + demo.nextMessage() + " from " + Demo.user(index);
    try {
      String id = client.sendMessage(rid, text);
      demo.ledger().written(id, rid);
      mine.add(id);
    } catch (OutboxFullException e) {
      demo.ledger().refused();
    }
  }

  /**
   * Edits or deletes one of this writer's messages (two edits for one deletion), through the
   * outbox like a message, so also while the server is down. The demo's writer thread only.
   */
  void change(java.util.Random random) {
    if (mine.isEmpty()) {
      write();
      return;
    }
    int pick = random.nextInt(mine.size());
    String id = mine.get(pick);
    try {
      if (random.nextInt(3) < 2) {
        client.edit(rid, id, "edited " + edits.incrementAndGet() + " by " + Demo.user(index));
        demo.countEdit();
      } else {
        mine.remove(pick);
        client.delete(rid, id).thenRun(() -> demo.ledger().deleted(id));
        demo.countDeletion();
      }
    } catch (OutboxFullException e) {
      demo.ledger().refused();
    }
  }

  synchronized List<long[]> timelineNanos() {
    return new ArrayList<>(timeline);
  }

  synchronized ChatStatus statusAt(int i) {
    return statuses.get(i);
  }

  @Override
  public void onMessage(ChatMessage m) {
    demo.ledger().delivered(index, m.id());
    if (m.ts().toEpochMilli() >= demo.restartAtMillis()) {
      heardAfterRestart = true;
    }
  }

  /** Ids this client heard edited; a few, for the report's first missing delivery. */
  final java.util.Set<String> editedIds = java.util.concurrent.ConcurrentHashMap.newKeySet();

  @Override
  public void onEdited(ChatMessage m) {
    if (editedIds.size() < 100_000) {
      editedIds.add(m.id());
    }
  }

  @Override
  public void onSent(String rid, String id) {
    demo.ledger().acknowledged(id);
  }

  @Override
  public synchronized void onStatus(ChatStatus status) {
    long now = System.nanoTime();
    statuses.add(status);
    timeline.add(new long[] {now, statuses.size() - 1});
    if (status.state() == ChatStatus.State.CONNECTED) {
      connectedAtNanos = now;
      connected = true;
    } else {
      connected = false;
    }
  }
}
