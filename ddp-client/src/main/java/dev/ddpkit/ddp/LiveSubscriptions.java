package dev.ddpkit.ddp;

import dev.ddpkit.ddp.protocol.ClientMessages;
import dev.ddpkit.ddp.protocol.DdpError;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's live subscriptions, in the order they were made: sent when connected, re-sent with
 * their own ids after a reconnect, ended by {@code nosub}, {@link Subscription#stop()} or the end
 * of the client. Event loop only.
 */
final class LiveSubscriptions {
  private static final Logger log = LoggerFactory.getLogger(DdpClient.class);

  private final ClientEngine engine;
  private final String name;
  private final ClientMessages out;
  private final LinkedHashMap<String, SubscriptionImpl> subs = new LinkedHashMap<>();
  /**
   * Ids of subscriptions of this session stopped and not yet answered by {@code nosub}: stopped
   * while offline (never sent), or sent on a socket that may have died before the server read it.
   * A resumed session (un)subscribes each of them again until its {@code nosub} arrives; a new
   * session has none of them.
   */
  private final LinkedHashSet<String> unansweredUnsubs = new LinkedHashSet<>();
  /**
   * Ids of subscriptions sent again on a resume (unanswered at the drop) whose first answer has
   * not come yet. If that answer is a {@code nosub} from the replay (the server refused the first
   * {@code sub}), the server holds no subscription of that id and runs the repeat afresh, perhaps
   * serving it this time: so the client, which has ended it, unsubscribes it.
   */
  private final LinkedHashSet<String> resentOnResume = new LinkedHashSet<>();

  LiveSubscriptions(ClientEngine engine, String name, ClientMessages out) {
    this.engine = engine;
    this.name = name;
    this.out = out;
  }

  /** Adds a subscription; sends it if connected. */
  void add(SubscriptionImpl s) {
    subs.put(s.id(), s);
    if (engine.state().isConnected()) {
      send(s);
    }
  }

  /**
   * {@link Subscription#stop()}: forgets it, and tells the server if it was sent in this session:
   * now, or, while offline, once the session is resumed (the server still runs it then); either
   * way again on a resume until the server answers (see {@link #unansweredUnsubs}).
   */
  void stop(SubscriptionImpl s) {
    if (!subs.remove(s.id(), s)) {
      return;
    }
    s.markUnsubscribed(
        new DdpException("subscription " + s.name() + " was stopped before it was ready"));
    if (s.isSent()) {
      unsub(s.id());
    }
    if (engine.resync().subscriptionGone(s.id())) {
      engine.maybeFinishResync();
    }
  }

  /**
   * Unsubscribes {@code id}: sent now if connected, and kept until its {@code nosub} so that a
   * resumed session sends it (again).
   */
  private void unsub(String id) {
    unansweredUnsubs.add(id);
    if (engine.state().isConnected()) {
      engine.send(out.unsub(id));
    }
  }

  /** Sends every subscription not sent on this connection yet, in order. */
  void sendUnsent() {
    for (SubscriptionImpl s : new ArrayList<>(subs.values())) {
      if (!s.isSent()) {
        send(s);
      }
    }
  }

  private void send(SubscriptionImpl s) {
    s.markSent();
    log.debug("{}: -> sub {} id={}", name, s.name(), s.id());
    engine.send(out.sub(s.id(), s.name(), s.params));
    engine.resync().subscriptionSent(s.id());
  }

  /** {@code ready}: each becomes ready, or, during a resync, once the store shows its data. */
  void onReady(List<String> ids) {
    for (String id : ids) {
      resentOnResume.remove(id);
      SubscriptionImpl s = subs.get(id);
      if (s == null) {
        continue; // stopped meanwhile
      }
      if (!engine.resync().subscriptionReady(s)) {
        s.markReady();
      }
    }
    engine.maybeFinishResync();
  }

  /** {@code nosub} (or a malformed one): the subscription ends with {@code cause}. */
  void onNoSub(String id, Function<SubscriptionImpl, DdpException> cause) {
    unansweredUnsubs.remove(id);
    if (resentOnResume.remove(id)) {
      log.debug("{}: -> unsub id={} (refused before the resume, sent again on it)", name, id);
      unsub(id);
    }
    SubscriptionImpl s = subs.remove(id);
    engine.resync().subscriptionGone(id);
    if (s != null) {
      DdpException ex = cause.apply(s);
      log.debug("{}: <- nosub {} id={} ({})", name, s.name(), id, ex.getClass().getSimpleName());
      s.markStopped(ex);
    }
    engine.maybeFinishResync();
  }

  static DdpException nosubCause(SubscriptionImpl s, DdpError error) {
    return error != null
        ? new DdpMethodException(error.error(), error.reason(), error.details())
        : new DdpException("subscription " + s.name() + " was stopped by the server");
  }

  /** Whether {@code s} is still the live subscription of its id. */
  boolean isLive(SubscriptionImpl s) {
    return subs.get(s.id()) == s;
  }

  /** The connection is lost: every subscription is stale until the session resumes or resyncs. */
  void connectionLost() {
    for (SubscriptionImpl s : subs.values()) {
      s.markStale();
    }
  }

  /** A new session: the server has none of them; every subscription is to be sent again. */
  void newSession() {
    unansweredUnsubs.clear();
    resentOnResume.clear();
    for (SubscriptionImpl s : subs.values()) {
      s.markUnsent();
    }
  }

  /**
   * The session resumed: the server still runs every subscription it received in it. Those
   * stopped while offline, or stopped before the drop and not answered, are unsubscribed now, else
   * they would stream on (an {@code unsub} written to a dying socket may never have been read; a
   * server that did read it answers the repeat with another {@code nosub}). The ready ones are
   * current again, and those made while offline are sent. One sent but never answered ({@code
   * ready} or {@code nosub}) is sent again: the resume proves the server wrote us everything, not
   * that it read everything we wrote, and a {@code sub} lost with the old socket would otherwise
   * never be answered. A server that did read it ignores the repeated id (DDP) and its answer
   * comes in the replay.
   */
  void resumed() {
    for (String id : unansweredUnsubs) {
      log.debug("{}: -> unsub id={} (stopped, not answered before the resume)", name, id);
      engine.send(out.unsub(id));
    }
    for (SubscriptionImpl s : subs.values()) {
      s.markCurrentIfReady();
      if (s.isSent() && !s.isReady()) {
        s.markUnsent(); // unanswered at the drop: perhaps never read
        resentOnResume.add(s.id());
      }
    }
    sendUnsent();
  }

  /** Ends every subscription with {@code ex}. */
  void failAll(DdpException ex) {
    unansweredUnsubs.clear();
    resentOnResume.clear();
    List<SubscriptionImpl> all = new ArrayList<>(subs.values());
    subs.clear();
    for (SubscriptionImpl s : all) {
      s.markStopped(ex);
    }
  }
}
