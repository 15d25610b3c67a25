package dev.ddpkit.ddp;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.ddp.protocol.DdpMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The state of one resynchronisation after a reconnect: what it waits for, the shadow data. */
final class ResyncState {
  /** Still in the reconnect sequence: what is sent now joins the sets below. */
  boolean collecting = true;
  final Set<String> subs = new HashSet<>();
  final Set<String> methods = new HashSet<>();
  final Map<String, Map<String, ObjectNode>> shadow = new HashMap<>();
  final List<SubscriptionImpl> readied = new ArrayList<>();

  /** Whether nothing is awaited any more: the collections can be swapped. */
  boolean quiet() {
    return !collecting && subs.isEmpty() && methods.isEmpty();
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
