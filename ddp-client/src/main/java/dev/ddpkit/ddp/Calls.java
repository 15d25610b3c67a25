package dev.ddpkit.ddp;

import dev.ddpkit.ddp.protocol.ClientMessages;
import dev.ddpkit.ddp.protocol.DdpMessage;
import dev.ddpkit.ddp.protocol.DdpError;
import dev.ddpkit.reconnect.Cancellable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's method calls: queued (bounded) until connected, sent block by block (a wait call
 * holds the later ones), re-sent with their own ids after a reconnect unless {@code noRetry},
 * completed by their {@code result}, failed by their timeout. Event loop only.
 */
final class Calls {
  private static final Logger log = LoggerFactory.getLogger(DdpClient.class);

  private final ClientEngine engine;
  private final String name;
  private final ClientMessages out;
  private final int maxQueued;
  private final MethodQueue methods = new MethodQueue();
  /**
   * Calls on the wire at the last drop, re-sent in the resumed session: the server may answer
   * both copies (the first in its replay), and the second answer is expected, not an error.
   */
  private final Set<String> answeredTwice = new HashSet<>();
  private final Set<String> onWireAtDrop = new HashSet<>();

  Calls(ClientEngine engine, String name, ClientMessages out, int maxQueued) {
    this.engine = engine;
    this.name = name;
    this.out = out;
    this.maxQueued = maxQueued;
  }

  /** Queues a call (or fails it if the queue is full); sends it if connected. */
  void add(PendingCall c) {
    if (methods.unsent() >= maxQueued) {
      c.future.completeExceptionally(
          new DdpException("too many calls waiting to be sent: the limit is " + maxQueued
              + " (maxQueuedCalls)"));
      return;
    }
    methods.add(c);
    engine.resync().callQueued(c.id);
    if (c.options.timeout() != null) {
      Cancellable t = engine.scheduleOnLoop(c.options.timeout(), () -> onTimeout(c));
      c.future.whenComplete((v, e) -> t.cancel());
    }
    if (engine.state().isConnected()) {
      send();
    }
  }

  /** Sends the calls of the first block that are not on the wire yet. */
  void send() {
    for (PendingCall c : methods.sendable()) {
      c.markSent();
      if (log.isDebugEnabled()) {
        log.debug("{}: -> method {} id={} params={}", name, c.method, c.id,
            Redaction.params(c.method, c.params));
      }
      engine.send(out.method(c.id, c.method, c.params, c.options.randomSeed()));
    }
  }

  /** A {@code result}: completes its call; {@code false} if no such call is on the wire. */
  boolean onResult(DdpMessage.Result r) {
    PendingCall c = methods.takeSent(r.id());
    if (c == null) {
      if (answeredTwice.remove(r.id())) {
        log.debug("{}: <- result id={} again (sent before and after the resume)", name, r.id());
        return true;
      }
      return false;
    }
    if (onWireAtDrop.remove(c.id)) {
      answeredTwice.add(c.id); // the other copy's answer may follow
    }
    send(); // the next block, if this result ended the first one
    DdpError e = r.error();
    if (e != null) {
      log.debug("{}: <- result id={} error={}", name, c.id, e.error());
      c.future.completeExceptionally(new DdpMethodException(e.error(), e.reason(), e.details()));
    } else {
      log.debug("{}: <- result id={}", name, c.id);
      c.future.complete(r.result());
    }
    return true;
  }

  /** A {@code result} whose error is malformed: only its call fails, the connection stays. */
  void onMalformedResult(String id, String problem) {
    PendingCall c = methods.takeSent(id);
    if (c == null) {
      return; // counted by the caller; the id is unknown anyway
    }
    send(); // the next block, if this result ended the first one
    c.future.completeExceptionally(new DdpException(
        "protocol error in the result of " + c.method + ": " + problem));
  }

  /** {@code updated}: the resync stops waiting for these calls. */
  void onUpdated(List<String> ids) {
    if (engine.resync().callsDone(ids)) {
      engine.maybeFinishResync();
    }
  }

  /** A call's timeout ran out: it leaves the queue, and the calls held behind it may go. */
  private void onTimeout(PendingCall c) {
    if (!methods.remove(c)) {
      return; // answered, or failed, meanwhile
    }
    log.debug("{}: call {} id={} timed out", name, c.method, c.id);
    c.future.completeExceptionally(new DdpTimeoutException(
        "no result for " + c.method + " within " + c.options.timeout().toMillis() + " ms"));
    if (engine.state().isConnected()) {
      send(); // the next block, if this call ended the first one
    }
    if (engine.resync().callsDone(List.of(c.id))) {
      engine.maybeFinishResync();
    }
  }

  /** Removes every block, to put the reconnect hooks' calls ahead of them. */
  List<MethodQueue.Block> takeAll() {
    return methods.takeAll();
  }

  /** Puts back the blocks taken by {@link #takeAll}; returns their call ids. */
  List<String> appendAll(List<MethodQueue.Block> old) {
    List<String> ids = methods.ids(old);
    methods.appendAll(old);
    return ids;
  }

  /** The connection is lost: returns the noRetry calls on the wire, which fail; others wait. */
  List<PendingCall> connectionLost() {
    onWireAtDrop.clear();
    answeredTwice.clear();
    onWireAtDrop.addAll(methods.onWire());
    List<PendingCall> failed = methods.connectionLost();
    for (PendingCall c : failed) {
      onWireAtDrop.remove(c.id);
    }
    return failed;
  }

  /** A new session: a result can only come for what is sent in it. */
  void newSession() {
    onWireAtDrop.clear();
  }

  /** Fails {@code alreadyRemoved} and every queued call with {@code ex}. */
  void failAll(List<PendingCall> alreadyRemoved, DdpException ex) {
    List<PendingCall> calls = new ArrayList<>(alreadyRemoved);
    calls.addAll(methods.clear());
    for (PendingCall c : calls) {
      c.future.completeExceptionally(ex);
    }
  }
}
