package dev.ddpkit.ddp;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.reconnect.Cancellable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local store of one collection. Written only on the client's event loop; read from any thread.
 * A stored document is never mutated: every change replaces it, so readers see whole versions.
 */
final class LocalCollection implements DdpCollection {
  private static final Logger log = LoggerFactory.getLogger(LocalCollection.class);

  private final String name;
  private final ConcurrentHashMap<String, ObjectNode> docs = new ConcurrentHashMap<>();
  private final CopyOnWriteArrayList<CollectionListener> listeners = new CopyOnWriteArrayList<>();

  LocalCollection(String name) {
    this.name = name;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Optional<ObjectNode> get(String id) {
    ObjectNode doc = docs.get(Objects.requireNonNull(id, "id"));
    return doc == null ? Optional.empty() : Optional.of(doc.deepCopy());
  }

  @Override
  public Map<String, ObjectNode> snapshot() {
    Map<String, ObjectNode> copy = new HashMap<>();
    docs.forEach((id, doc) -> copy.put(id, doc.deepCopy()));
    return Map.copyOf(copy);
  }

  @Override
  public int size() {
    return docs.size();
  }

  @Override
  public Cancellable addListener(CollectionListener listener) {
    Objects.requireNonNull(listener, "listener");
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  /** The raw documents, for the resync (loop only; not copied). */
  Map<String, ObjectNode> documents() {
    return docs;
  }

  // ---- writes, on the loop; each returns the events to fire once the state is consistent ----

  /** An {@code added}: a new document, or (lenient) a replacement reported as a change. */
  List<Runnable> added(String id, ObjectNode fields) {
    ObjectNode next = fields.deepCopy();
    ObjectNode before = docs.put(id, next);
    if (before == null) {
      return List.of(() -> fireAdded(id, next));
    }
    Docs.Delta d = Docs.delta(before, next);
    return d.isEmpty() ? List.of() : List.of(() -> fireChanged(id, d));
  }

  /** An {@code added} in a resumed session: a new document, or for a held one a change. */
  List<Runnable> addedOrMerged(String id, ObjectNode fields) {
    if (docs.containsKey(id)) {
      return changed(id, fields, List.of());
    }
    return added(id, fields);
  }

  /** A {@code changed}; returns {@code null} if the document is unknown. */
  List<Runnable> changed(String id, ObjectNode fields, List<String> cleared) {
    ObjectNode before = docs.get(id);
    if (before == null) {
      return null;
    }
    ObjectNode next = Docs.applyChange(before, fields, cleared);
    docs.put(id, next);
    Docs.Delta d = Docs.delta(before, next);
    return d.isEmpty() ? List.of() : List.of(() -> fireChanged(id, d));
  }

  /** A {@code removed}; returns {@code null} if the document is unknown. */
  List<Runnable> removed(String id) {
    if (docs.remove(id) == null) {
      return null;
    }
    return List.of(() -> fireRemoved(id));
  }

  /**
   * Replaces every document with {@code next} in one step and returns the events that turn the old
   * content into the new: removed, added, and changed with only the fields that differ.
   */
  List<Runnable> replaceAll(Map<String, ObjectNode> next) {
    List<Runnable> events = new ArrayList<>();
    // Through Map: ConcurrentHashMap.keySet() returns KeySetView on the JDK, a Set on Android.
    Set<String> gone = new HashSet<>(((Map<String, ObjectNode>) docs).keySet());
    gone.removeAll(next.keySet());
    for (String id : gone) {
      docs.remove(id);
      events.add(() -> fireRemoved(id));
    }
    for (Map.Entry<String, ObjectNode> e : new LinkedHashMap<>(next).entrySet()) {
      String id = e.getKey();
      ObjectNode doc = e.getValue();
      ObjectNode before = docs.put(id, doc);
      if (before == null) {
        events.add(() -> fireAdded(id, doc));
      } else {
        Docs.Delta d = Docs.delta(before, doc);
        if (!d.isEmpty()) {
          events.add(() -> fireChanged(id, d));
        }
      }
    }
    return events;
  }

  private void fireAdded(String id, ObjectNode fields) {
    for (CollectionListener l : listeners) {
      try {
        l.onAdded(name, id, fields.deepCopy());
      } catch (RuntimeException e) {
        log.warn("collection listener failed on {}", name, e);
      }
    }
  }

  private void fireChanged(String id, Docs.Delta d) {
    for (CollectionListener l : listeners) {
      try {
        l.onChanged(name, id, d.fields().deepCopy(), d.cleared());
      } catch (RuntimeException e) {
        log.warn("collection listener failed on {}", name, e);
      }
    }
  }

  private void fireRemoved(String id) {
    for (CollectionListener l : listeners) {
      try {
        l.onRemoved(name, id);
      } catch (RuntimeException e) {
        log.warn("collection listener failed on {}", name, e);
      }
    }
  }

  @Override
  public String toString() {
    return "DdpCollection{" + name + ", " + docs.size() + " documents}";
  }
}
