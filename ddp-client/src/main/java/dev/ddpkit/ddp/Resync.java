package dev.ddpkit.ddp;

import dev.ddpkit.reconnect.Cancellable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The resynchronisation after a reconnect: data is held in a shadow copy until the revived
 * subscriptions are ready and the re-sent calls updated (or {@code resyncTimeout} passes), then
 * the stores are replaced in one step. Also keeps {@link DdpClient#isResyncing()}: set when an
 * established connection is lost, cleared by that swap. The one owner of the {@link ResyncState}
 * under way: the calls, the subscriptions and the engine tell it what happened (a subscription
 * sent or ready, a call queued or updated, the end of the reconnect sequence), and it keeps the
 * books. Event loop only, but {@link #stale()}.
 */
final class Resync {
  private static final Logger log = LoggerFactory.getLogger(DdpClient.class);

  private final String name;
  private final Duration timeout;
  private final DataRouter data;
  private final LiveSubscriptions subs;
  private final Listeners listeners;
  private final Runnable afterTimeout;
  private ResyncState current;
  private Cancellable timer;
  /** The collections hold data of a lost connection. */
  private volatile boolean stale;
  /** The last value of {@link #stale} told to the resync listeners. */
  private boolean announced;

  /** {@code afterTimeout} is told when the timeout let go of what it awaited, to finish it. */
  Resync(String name, Duration timeout, DataRouter data, LiveSubscriptions subs, Listeners listeners,
      Runnable afterTimeout) {
    this.afterTimeout = afterTimeout;
    this.name = name;
    this.timeout = timeout;
    this.data = data;
    this.subs = subs;
    this.listeners = listeners;
  }

  /** The resync under way, or {@code null}: for the data router, which fills its shadow. */
  ResyncState current() {
    return current;
  }

  /** A subscription was sent: the resync under way waits for its {@code ready}. */
  void subscriptionSent(String id) {
    if (current != null) {
      current.subscriptionSent(id);
    }
  }

  /** A call was queued: the resync under way waits for its {@code updated}. */
  void callQueued(String id) {
    if (current != null) {
      current.callQueued(id);
    }
  }

  /** The unanswered calls the reconnect re-sent: the resync waits for each. */
  void callsResent(Collection<String> ids) {
    current.callsResent(ids);
  }

  /** The reconnect sequence has sent what it sends. */
  void endOfSequence() {
    current.endOfSequence();
  }

  /**
   * {@code ready} for {@code s}: returns {@code true} if a resync is under way, which then marks it
   * ready when the stores are swapped; {@code false}, and the caller marks it ready now.
   */
  boolean subscriptionReady(SubscriptionImpl s) {
    if (current == null) {
      return false;
    }
    current.subscriptionReady(s);
    return true;
  }

  /** A subscription stopped or refused; returns whether a resync is under way. */
  boolean subscriptionGone(String id) {
    if (current == null) {
      return false;
    }
    current.subscriptionGone(id);
    return true;
  }

  /** Calls updated, answered for good or timed out; returns whether a resync is under way. */
  boolean callsDone(Collection<String> ids) {
    if (current == null) {
      return false;
    }
    ids.forEach(current::callDone);
    return true;
  }

  /** Whether the collections may be out of date (any thread). */
  boolean stale() {
    return stale;
  }

  /** The connection is lost: the resync under way is dropped; an established one's data is stale. */
  void connectionLost(boolean wasEverConnected) {
    current = null;
    timer = null; // a connection timer: gone with it
    if (wasEverConnected) {
      stale = true;
    }
  }

  /** The session resumed: the collections are what the server holds for it; nothing to swap. */
  void resumed() {
    current = null;
    stale = false;
    announce();
  }

  /** A reconnect: starts a resync, timed out on {@code c}'s clock. */
  void begin(Connection c) {
    ResyncState r = new ResyncState();
    current = r;
    timer = c.schedule(timeout, () -> onTimeout(r));
  }

  /**
   * The resync {@code r} is still waiting after {@link #timeout}: a revived subscription never got
   * {@code ready}, or a re-sent call never got {@code updated}. Shows what arrived rather than keep
   * the stale data until the next reconnect.
   */
  private void onTimeout(ResyncState r) {
    if (current != r) {
      return;
    }
    log.warn("{}: resync unfinished after {} ms ({} subscription(s) not ready, {} call(s) without "
        + "'updated'); showing the data received so far", name, timeout.toMillis(),
        r.subscriptionsAwaited(), r.callsAwaited());
    r.giveUpWaiting();
    afterTimeout.run();
  }

  /** Replaces the stores with the shadow if nothing is awaited any more; returns if it did. */
  boolean finishIfQuiet() {
    ResyncState r = current;
    if (r == null || !r.quiet()) {
      return false;
    }
    current = null;
    if (timer != null) {
      timer.cancel();
      timer = null;
    }
    Set<String> names = new LinkedHashSet<>();
    data.collections().forEach((n, c) -> {
      if (!c.documents().isEmpty()) {
        names.add(n);
      }
    });
    names.addAll(r.shadow().keySet());
    names.removeAll(data.streamNames());
    List<Runnable> events = new ArrayList<>();
    for (String n : names) {
      events.addAll(data.collection(n).replaceAll(r.shadow().getOrDefault(n, Map.of())));
    }
    log.debug("{}: resynchronised {} collections, {} changes", name, names.size(), events.size());
    events.forEach(Runnable::run);
    for (SubscriptionImpl s : r.readied()) {
      if (subs.isLive(s)) {
        s.markReady();
      }
    }
    stale = false;
    announce();
    return true;
  }

  /** Tells the resync listeners about {@link #stale} if it changed since they were told. */
  void announce() {
    boolean now = stale;
    if (now == announced) {
      return;
    }
    announced = now;
    log.debug("{}: {}", name, now ? "data may be stale until the resync" : "data resynchronised");
    listeners.tellEach(listeners.resync, "resync listener", l -> l.onResyncChanged(now));
  }
}
