package dev.ddpkit.chat;

import dev.ddpkit.ddp.DdpStatus;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Works out what the status line shows from the connection, the login and the rooms, tells the
 * listener when it changes, and publishes a {@link ChatSession.View} for other threads after every
 * change. "connected" comes only once every room is live and caught up, after the messages the
 * catch-ups fetched.
 */
final class StatusLine {
  private final ChatSession session;
  private final ChatListener listener;
  private final Consumer<ChatSession.View> publish;
  private DdpStatus ddp;
  private ChatStatus current = ChatClient.NOT_STARTED;

  StatusLine(ChatSession session, ChatListener listener, Consumer<ChatSession.View> publish) {
    this.session = session;
    this.listener = listener;
    this.publish = publish;
  }

  ChatStatus current() {
    return current;
  }

  /** The reconnection attempt of the latest DDP status. */
  int attempt() {
    return ddp == null ? 0 : ddp.attempt();
  }

  void ddpStatus(DdpStatus s) {
    this.ddp = s;
  }

  /** Recomputes the status line (unless the session ended: its last line stays) and publishes. */
  void refresh() {
    if (!session.closed()) {
      show(compute());
    }
    publishView();
  }

  /** The last status, once the session ended: signed out or stopped. */
  void end(ChatStatus last) {
    show(last);
    publishView();
  }

  private ChatStatus compute() {
    int waiting = session.sender.waiting();
    if (ddp == null) {
      return withWaiting(ChatStatus.of(ChatStatus.State.CONNECTING), waiting);
    }
    switch (ddp.state()) {
      case CONNECTING:
        return withWaiting(connecting(), waiting);
      case CONNECTED:
        if (!session.loggedIn()) {
          return withWaiting(connecting(), waiting);
        }
        int behind = behind().size();
        return withWaiting(
            behind == 0 ? connected().withResumed(ddp.resumed()) : ChatStatus.syncing(behind),
            waiting);
      case WAITING:
      case OFFLINE:
        return withWaiting(
            new ChatStatus(ChatStatus.State.WAITING, ddp.attempt(), retryIn(), ddp.reason()),
            waiting);
      case FAILED:
        return new ChatStatus(ChatStatus.State.STOPPED, ddp.attempt(), Duration.ZERO,
            ddp.reason());
      default:
        throw new AssertionError("Unexpected state: " + ddp.state());
    }
  }

  /** Connected; the reason says which rooms have no live deletions on this connection. */
  private ChatStatus connected() {
    List<String> refused = session.deletions.refused();
    if (refused.isEmpty()) {
      return ChatStatus.of(ChatStatus.State.CONNECTED);
    }
    return new ChatStatus(ChatStatus.State.CONNECTED, 0, Duration.ZERO,
        "live deletions unavailable in " + String.join(", ", refused)
            + "; repaired at the next reconnect");
  }

  private ChatStatus connecting() {
    return new ChatStatus(ChatStatus.State.CONNECTING, ddp.attempt(), Duration.ZERO, "");
  }

  private static ChatStatus withWaiting(ChatStatus s, int waiting) {
    return s.withWaiting(waiting);
  }

  private Duration retryIn() {
    return ddp.retryIn(session.settings.clock().instant());
  }

  private void show(ChatStatus next) {
    if (next.equals(current)) {
      return;
    }
    current = next;
    ChatSession.tell(() -> listener.onStatus(next));
  }

  private Set<String> behind() {
    Set<String> out = new LinkedHashSet<>();
    for (Room r : session.rooms.values()) {
      if (r.behind()) {
        out.add(r.rid);
      }
    }
    return out;
  }

  private void publishView() {
    Set<String> joined = new LinkedHashSet<>();
    for (Room r : session.rooms.values()) {
      if (r.live) {
        joined.add(r.rid);
      }
    }
    Set<String> behind = session.closed() ? Set.of() : behind();
    publish.accept(
        new ChatSession.View(
            current,
            Set.copyOf(joined),
            Set.copyOf(behind),
            session.login.token(),
            session.counters.snapshot(session.pacer.refusals())));
  }
}
