package dev.ddpkit.ddp;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.ddp.protocol.DdpMessage;
import dev.ddpkit.reconnect.Cancellable;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where data messages go: to the stream listeners of a collection used as an event stream, else
 * to the local store (or, during a resync, to the resync's shadow copy). Stores and listeners are
 * read and added from any thread; messages are routed on the event loop.
 */
final class DataRouter {
  private static final Logger log = LoggerFactory.getLogger(DdpClient.class);

  private final String name;
  private final ConcurrentHashMap<String, LocalCollection> collections = new ConcurrentHashMap<>();
  // Declared as a Map: ConcurrentHashMap.keySet() returns a type Android's API does not have.
  private final Map<String, CopyOnWriteArrayList<StreamListener>> streams =
      new ConcurrentHashMap<>();
  /**
   * In a resumed session, an {@code added} for a document the store holds is merged as a change:
   * a replayed message may arrive after newer ones (Meteor 3.5.0), and replacing the document
   * with its older whole would drop the fields changed since. Loop only.
   */
  private boolean mergeHeldAdded;

  DataRouter(String name) {
    this.name = name;
  }

  /** Returns the local store of a collection, created empty on first use. */
  LocalCollection collection(String collection) {
    return collections.computeIfAbsent(collection, LocalCollection::new);
  }

  /** The stores, for the resync (loop only). */
  Map<String, LocalCollection> collections() {
    return collections;
  }

  /** A resumed session ({@code true}) or a new one: how an {@code added} for a held doc is read. */
  void sessionResumed(boolean resumed) {
    mergeHeldAdded = resumed;
  }

  /** Whether {@code collection} is an event stream now. */
  boolean isStream(String collection) {
    return streams.containsKey(collection);
  }

  /** The collections that are event streams now. */
  Set<String> streamNames() {
    return streams.keySet();
  }

  /**
   * Makes {@code collection} an event stream while it has listeners; the handle removes {@code
   * l}, and with the last listener the collection is a store again.
   */
  Cancellable addStreamListener(String collection, StreamListener l) {
    streams.compute(collection, (k, ls) -> {
      CopyOnWriteArrayList<StreamListener> list = ls != null ? ls : new CopyOnWriteArrayList<>();
      list.add(l);
      return list;
    });
    return () -> streams.computeIfPresent(collection, (k, ls) -> {
      ls.remove(l);
      return ls.isEmpty() ? null : ls;
    });
  }

  /**
   * Routes a data message; returns {@code false} if it names a document the store (or shadow)
   * does not have, for the caller to count.
   */
  boolean route(DdpMessage.DataMessage d, ResyncState resync) {
    List<StreamListener> ls = streams.get(d.collection());
    if (ls != null) {
      deliverStream(d, ls);
      return true;
    }
    if (resync != null) {
      return resync.applyToShadow(d);
    }
    LocalCollection c = collection(d.collection());
    List<Runnable> events;
    if (d instanceof DdpMessage.Added a) {
      events = mergeHeldAdded ? c.addedOrMerged(a.id(), a.fields()) : c.added(a.id(), a.fields());
    } else if (d instanceof DdpMessage.AddedBefore a) {
      // ordering is not kept: an unordered store
      events = mergeHeldAdded ? c.addedOrMerged(a.id(), a.fields()) : c.added(a.id(), a.fields());
    } else if (d instanceof DdpMessage.Changed ch) {
      events = c.changed(ch.id(), ch.fields(), ch.cleared());
    } else if (d instanceof DdpMessage.Removed r) {
      events = c.removed(r.id());
    } else {
      events = List.of(); // movedBefore: no order to keep
    }
    if (events == null) {
      return false;
    }
    events.forEach(Runnable::run);
    return true;
  }

  private void deliverStream(DdpMessage.DataMessage d, List<StreamListener> ls) {
    ObjectNode fields;
    if (d instanceof DdpMessage.Added a) {
      fields = a.fields();
    } else if (d instanceof DdpMessage.AddedBefore a) {
      fields = a.fields();
    } else if (d instanceof DdpMessage.Changed c) {
      fields = c.fields();
    } else {
      return; // removed / movedBefore: nothing is stored, nothing to report
    }
    // Each listener gets fields of its own, which it may keep or change: a copy for all but the
    // last, and the parsed tree itself for the last (nothing else holds it), so the usual single
    // listener costs no copy. Iterated by index on a snapshot: CopyOnWriteArrayList's array.
    Object[] snapshot = ls.toArray();
    int last = snapshot.length - 1;
    for (int i = 0; i <= last; i++) {
      StreamListener l = (StreamListener) snapshot[i];
      try {
        l.onEvent(d.collection(), d.id(), i == last ? fields : fields.deepCopy());
      } catch (RuntimeException e) {
        log.warn("{}: stream listener failed on {}", name, d.collection(), e);
      }
    }
  }
}
