package dev.ddpkit.ddp.testserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** One DDP {@code method} message, with the means to answer it. Thread-safe. */
public final class MethodCall {
  private final TestConnection connection;
  private final String id;
  private final String method;
  private final ArrayNode params;
  private final JsonNode randomSeed;

  MethodCall(
      TestConnection connection, String id, String method, ArrayNode params, JsonNode randomSeed) {
    this.connection = connection;
    this.id = id;
    this.method = method;
    this.params = params;
    this.randomSeed = randomSeed;
  }

  /** Returns the call id the client chose. */
  public String id() {
    return id;
  }

  /** Returns the method name. */
  public String method() {
    return method;
  }

  /** Returns the parameters (an empty array if the client sent none). */
  public ArrayNode params() {
    return params;
  }

  /** Returns the client's {@code randomSeed}, or a missing node. */
  public JsonNode randomSeed() {
    return randomSeed;
  }

  /** Returns the connection the call came on. */
  public TestConnection connection() {
    return connection;
  }

  /** Answers with {@code result} then {@code updated}, as a Meteor server does. */
  public void reply(JsonNode result) {
    sendResult(result);
    sendUpdated();
  }

  /** Answers with an error result then {@code updated}. */
  public void replyError(String error, String reason) {
    ObjectNode msg = TestDdpServer.message("result").put("id", id);
    msg.set("error", TestDdpServer.error(error, reason));
    connection.send(msg);
    sendUpdated();
  }

  /** Sends only the {@code result} ({@code null} for a call that returns nothing). */
  public void sendResult(JsonNode result) {
    ObjectNode msg = TestDdpServer.message("result").put("id", id);
    if (result != null && !result.isMissingNode()) {
      msg.set("result", result);
    }
    connection.send(msg);
  }

  /** Sends only {@code updated} for this call. */
  public void sendUpdated() {
    ObjectNode msg = TestDdpServer.message("updated");
    msg.putArray("methods").add(id);
    connection.send(msg);
  }

  @Override
  public String toString() {
    return "MethodCall{" + method + " id=" + id + " on " + connection.id() + "}";
  }
}
