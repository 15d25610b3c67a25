package dev.ddpkit.ddp;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The calls without a result, in blocks as Meteor keeps them: a wait call is a block of its own,
 * consecutive other calls share one. Only the first block may be on the wire; the next one goes out
 * when every call of the first has its result. So a wait call holds every later call, and two wait
 * calls keep their order. Event loop only.
 */
final class MethodQueue {
  /** A block of calls sent together. */
  static final class Block {
    final boolean wait;
    final List<PendingCall> calls = new ArrayList<>();

    Block(boolean wait) {
      this.wait = wait;
    }
  }

  private final ArrayDeque<Block> blocks = new ArrayDeque<>();
  private final Map<String, PendingCall> byId = new HashMap<>();

  /** Adds a call at the end. */
  void add(PendingCall call) {
    Block last = blocks.peekLast();
    Block target;
    if (call.waitForResult() || last == null || last.wait) {
      target = new Block(call.waitForResult());
      blocks.addLast(target);
    } else {
      target = last;
    }
    target.calls.add(call);
    byId.put(call.id, call);
  }

  /** Returns the calls of the first block that are not on the wire yet. */
  List<PendingCall> sendable() {
    Block first = blocks.peekFirst();
    if (first == null) {
      return List.of();
    }
    List<PendingCall> out = new ArrayList<>();
    for (PendingCall c : first.calls) {
      if (!c.isSent()) {
        out.add(c);
      }
    }
    return out;
  }

  /**
   * Takes the call a result is for. Returns {@code null} if no call with that id is on the wire
   * (unknown, or not sent on this connection).
   */
  PendingCall takeSent(String id) {
    PendingCall c = byId.get(id);
    if (c == null || !c.isSent()) {
      return null;
    }
    remove(c);
    return c;
  }

  /** Removes a call, sent or not; returns whether it was there. */
  boolean remove(PendingCall c) {
    if (byId.remove(c.id) != c) {
      return false;
    }
    for (Iterator<Block> it = blocks.iterator(); it.hasNext(); ) {
      Block b = it.next();
      if (b.calls.remove(c)) {
        if (b.calls.isEmpty()) {
          it.remove();
        }
        break;
      }
    }
    return true;
  }

  /** Returns the ids of the calls on the wire (sent, no result yet). */
  List<String> onWire() {
    List<String> out = new ArrayList<>();
    for (Block b : blocks) {
      for (PendingCall c : b.calls) {
        if (c.isSent()) {
          out.add(c.id);
        }
      }
    }
    return out;
  }

  /** Returns how many calls are waiting to be sent. */
  int unsent() {
    int n = 0;
    for (Block b : blocks) {
      for (PendingCall c : b.calls) {
        if (!c.isSent()) {
          n++;
        }
      }
    }
    return n;
  }

  /**
   * The connection is lost: removes and returns the noRetry calls that were on the wire (they fail
   * with invocation-failed); every other call becomes unsent, to be sent again.
   */
  List<PendingCall> connectionLost() {
    List<PendingCall> failed = new ArrayList<>();
    for (Iterator<Block> it = blocks.iterator(); it.hasNext(); ) {
      Block b = it.next();
      for (Iterator<PendingCall> ci = b.calls.iterator(); ci.hasNext(); ) {
        PendingCall c = ci.next();
        if (c.isSent() && c.options.noRetry()) {
          ci.remove();
          byId.remove(c.id);
          failed.add(c);
        }
        c.markUnsent();
      }
      if (b.calls.isEmpty()) {
        it.remove();
      }
    }
    return failed;
  }

  /** Removes and returns every block (to put the reconnect hooks' calls ahead of them). */
  List<Block> takeAll() {
    List<Block> out = new ArrayList<>(blocks);
    blocks.clear();
    return out;
  }

  /** Appends blocks taken earlier, merging the first with the last if neither is a wait block. */
  void appendAll(List<Block> old) {
    for (Block b : old) {
      Block last = blocks.peekLast();
      if (last != null && !last.wait && !b.wait) {
        last.calls.addAll(b.calls);
      } else {
        blocks.addLast(b);
      }
    }
  }

  /** Removes and returns every call. */
  List<PendingCall> clear() {
    List<PendingCall> out = new ArrayList<>();
    for (Block b : blocks) {
      out.addAll(b.calls);
    }
    blocks.clear();
    byId.clear();
    return out;
  }

  /** Returns the ids of every call, in order. */
  List<String> ids(List<Block> from) {
    List<String> out = new ArrayList<>();
    for (Block b : from) {
      for (PendingCall c : b.calls) {
        out.add(c.id);
      }
    }
    return out;
  }
}
