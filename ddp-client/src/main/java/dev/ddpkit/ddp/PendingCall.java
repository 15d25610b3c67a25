package dev.ddpkit.ddp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.util.concurrent.CompletableFuture;

/** A method call that has no result yet. Mutable state is touched on the event loop only. */
final class PendingCall {
  final String id;
  final String method;
  final ArrayNode params;
  final CallOptions options;
  final CompletableFuture<JsonNode> future = new CompletableFuture<>();
  /** Sent on the current connection. */
  private boolean sent;

  PendingCall(String id, String method, ArrayNode params, CallOptions options) {
    this.id = id;
    this.method = method;
    this.params = params;
    this.options = options;
  }

  /** Whether it was sent on the current connection. */
  boolean isSent() {
    return sent;
  }

  /** Sent on the current connection. */
  void markSent() {
    sent = true;
  }

  /** To be sent again on the next connection. */
  void markUnsent() {
    sent = false;
  }

  boolean waitForResult() {
    return options.waitForResult();
  }

  @Override
  public String toString() {
    // No params: they may carry a password or a token.
    return "call " + method + " id=" + id;
  }
}
