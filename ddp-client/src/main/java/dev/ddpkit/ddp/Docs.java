package dev.ddpkit.ddp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Pure document operations shared by the stores and the resync. */
final class Docs {
  private Docs() {}

  /** Returns a new document: {@code doc} with {@code fields} set and {@code cleared} removed. */
  static ObjectNode applyChange(ObjectNode doc, ObjectNode fields, List<String> cleared) {
    ObjectNode next = doc.deepCopy();
    Iterator<Map.Entry<String, JsonNode>> it = fields.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      next.set(e.getKey(), e.getValue().deepCopy());
    }
    for (String c : cleared) {
      next.remove(c);
    }
    return next;
  }

  /** The difference between two versions of a document: fields set and fields cleared. */
  record Delta(ObjectNode fields, List<String> cleared) {
    boolean isEmpty() {
      return fields.isEmpty() && cleared.isEmpty();
    }
  }

  /** Computes what changed from {@code before} to {@code after}. */
  static Delta delta(ObjectNode before, ObjectNode after) {
    ObjectNode fields = JsonNodeFactory.instance.objectNode();
    Iterator<Map.Entry<String, JsonNode>> it = after.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!Objects.equals(before.get(e.getKey()), e.getValue())) {
        fields.set(e.getKey(), e.getValue().deepCopy());
      }
    }
    List<String> cleared = new ArrayList<>();
    Iterator<String> names = before.fieldNames();
    while (names.hasNext()) {
      String n = names.next();
      if (!after.has(n)) {
        cleared.add(n);
      }
    }
    return new Delta(fields, List.copyOf(cleared));
  }
}
