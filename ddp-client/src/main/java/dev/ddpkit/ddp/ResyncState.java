package dev.ddpkit.ddp;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.ddp.protocol.DdpMessage;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The state of one resynchronisation after a reconnect: what it waits for, the shadow data. Its
 * bookkeeping (what is awaited, whether the reconnect sequence is still collecting) is changed
 * only through {@link Resync}, its one owner; the data router adds to the shadow through {@link
 * #applyToShadow}. Event loop only.
 */
final class ResyncState {
  /** Still in the reconnect sequence: what is sent now joins the sets below. */
  private boolean collecting = true;
  private final Set<String> subs = new HashSet<>();
  private final Set<String> methods = new HashSet<>();
  private final Map<String, Map<String, ObjectNode>> shadow = new HashMap<>();
  private final List<SubscriptionImpl> readied = new ArrayList<>();

  /** Whether nothing is awaited any more: the collections can be swapped. */
  boolean quiet() {
    return !collecting && subs.isEmpty() && methods.isEmpty();
  }

  /** A subscription sent: awaited if the reconnect sequence is still collecting. */
  void subscriptionSent(String id) {
    if (collecting) {
      subs.add(id);
    }
  }

  /** A call queued: awaited (its {@code updated}) if the sequence is still collecting. */
  void callQueued(String id) {
    if (collecting) {
      methods.add(id);
    }
  }

  /** The unanswered calls re-sent by the reconnect: each awaited. */
  void callsResent(Collection<String> ids) {
    methods.addAll(ids);
  }

  /** The reconnect sequence has sent all it sends: what is sent later is not awaited. */
  void endOfSequence() {
    collecting = false;
  }

  /** {@code ready} for {@code s}: no longer awaited, ready once the stores are swapped. */
  void subscriptionReady(SubscriptionImpl s) {
    subs.remove(s.id());
    readied.add(s);
  }

  /** A subscription stopped or refused: no longer awaited. */
  void subscriptionGone(String id) {
    subs.remove(id);
  }

  /** A call updated, answered for good or timed out: no longer awaited. */
  void callDone(String id) {
    methods.remove(id);
  }

  /** The timeout let go: nothing is awaited any more, and nothing more will be. */
  void giveUpWaiting() {
    collecting = false;
    subs.clear(); // each becomes current when its own ready arrives
    methods.clear();
  }

  /** How many subscriptions are still awaited. */
  int subscriptionsAwaited() {
    return subs.size();
  }

  /** How many calls are still awaited. */
  int callsAwaited() {
    return methods.size();
  }

  /** The shadow copy, by collection and document id (read-only). */
  Map<String, Map<String, ObjectNode>> shadow() {
    return Collections.unmodifiableMap(shadow);
  }

  /** The subscriptions whose {@code ready} arrived during the resync (read-only). */
  List<SubscriptionImpl> readied() {
    return Collections.unmodifiableList(readied);
  }

  /** Applies a data message to the shadow; {@code false} if it names an unknown document. */
  boolean applyToShadow(DdpMessage.DataMessage d) {
    Map<String, ObjectNode> docs = shadow.computeIfAbsent(d.collection(), k -> new HashMap<>());
    if (d instanceof DdpMessage.Added a) {
      docs.put(a.id(), a.fields().deepCopy());
    } else if (d instanceof DdpMessage.AddedBefore a) {
      docs.put(a.id(), a.fields().deepCopy());
    } else if (d instanceof DdpMessage.Changed ch) {
      ObjectNode doc = docs.get(ch.id());
      if (doc == null) {
        return false;
      }
      docs.put(ch.id(), Docs.applyChange(doc, ch.fields(), ch.cleared()));
    } else if (d instanceof DdpMessage.Removed gone) {
      return docs.remove(gone.id()) != null;
    }
    return true;
  }
}
