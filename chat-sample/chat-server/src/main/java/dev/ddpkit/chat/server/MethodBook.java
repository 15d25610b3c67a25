package dev.ddpkit.chat.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The method ids one DDP session has seen, so that a method is never run twice: the last {@link
 * #REMEMBERED_METHOD_IDS} ids, and for the last {@link #REMEMBERED_RESULTS} finished ones the
 * frames they were answered with, sent again to a client that repeats the id (after a reconnect
 * it could not tell whether its call went out). A call begins on the connection's socket worker
 * and may finish on the store's writer, hence this object's own monitor. A resumed session's
 * connections share one book (see {@link Session#methods}).
 */
final class MethodBook {
  /** Method ids remembered per DDP session, to refuse running one twice. */
  static final int REMEMBERED_METHOD_IDS = 256;
  /** Of those, how many keep their answer to send it again. */
  static final int REMEMBERED_RESULTS = 16;
  private static final List<ObjectNode> RUNNING = List.of();

  /** What a method id has been seen as. */
  enum MethodState { NEW, RUNNING, DONE, FORGOTTEN }

  // Guarded by this.
  private final LinkedHashMap<String, List<ObjectNode>> methods = new LinkedHashMap<>();
  private final ArrayDeque<String> withResults = new ArrayDeque<>();

  /** Registers a method id; answers what it was already, NEW meaning "run it now". */
  synchronized MethodState begin(String id) {
    if (methods.containsKey(id)) {
      List<ObjectNode> v = methods.get(id);
      if (v == RUNNING) {
        return MethodState.RUNNING;
      }
      return v == null ? MethodState.FORGOTTEN : MethodState.DONE;
    }
    methods.put(id, RUNNING);
    if (methods.size() > REMEMBERED_METHOD_IDS) {
      Iterator<Map.Entry<String, List<ObjectNode>>> it = methods.entrySet().iterator();
      while (it.hasNext() && methods.size() > REMEMBERED_METHOD_IDS) {
        Map.Entry<String, List<ObjectNode>> e = it.next();
        if (e.getValue() != RUNNING) {
          it.remove();
        }
      }
    }
    return MethodState.NEW;
  }

  /** Stores a finished method's frames so that a repeat of its id gets them again. */
  synchronized void finish(String id, List<ObjectNode> frames) {
    if (!methods.containsKey(id)) {
      return;
    }
    methods.put(id, List.copyOf(frames));
    withResults.addLast(id);
    while (withResults.size() > REMEMBERED_RESULTS) {
      String old = withResults.removeFirst();
      if (methods.containsKey(old) && methods.get(old) != RUNNING) {
        methods.put(old, null);
      }
    }
  }

  /** The stored frames of a finished method, or an empty list. */
  synchronized List<ObjectNode> resultOf(String id) {
    List<ObjectNode> v = methods.get(id);
    return v == null ? List.of() : v;
  }
}
