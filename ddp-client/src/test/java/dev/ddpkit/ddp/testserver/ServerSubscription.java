package dev.ddpkit.ddp.testserver;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/** One DDP subscription on the {@link TestDdpServer}, with the means to publish to it. */
public final class ServerSubscription {
  private final TestConnection connection;
  private final String id;
  private final String name;
  private final ArrayNode params;
  private volatile boolean active = true;

  ServerSubscription(TestConnection connection, String id, String name, ArrayNode params) {
    this.connection = connection;
    this.id = id;
    this.name = name;
    this.params = params;
  }

  /** Returns the subscription id the client chose. */
  public String id() {
    return id;
  }

  /** Returns the publication name. */
  public String name() {
    return name;
  }

  /** Returns the parameters (an empty array if the client sent none). */
  public ArrayNode params() {
    return params;
  }

  /** Returns the connection the subscription came on. */
  public TestConnection connection() {
    return connection;
  }

  /** Returns whether the subscription is live: not stopped by {@code unsub} or {@code nosub}. */
  public boolean isActive() {
    return active && connection.isOpen();
  }

  /** Sends {@code added}. */
  public void added(String collection, String docId, ObjectNode fields) {
    ObjectNode msg = TestDdpServer.message("added").put("collection", collection).put("id", docId);
    msg.set("fields", fields);
    connection.send(msg);
  }

  /** Sends {@code changed} with new {@code fields} and {@code cleared} field names. */
  public void changed(String collection, String docId, ObjectNode fields, List<String> cleared) {
    ObjectNode msg =
        TestDdpServer.message("changed").put("collection", collection).put("id", docId);
    if (fields != null) {
      msg.set("fields", fields);
    }
    if (cleared != null && !cleared.isEmpty()) {
      ArrayNode c = msg.putArray("cleared");
      cleared.forEach(c::add);
    }
    connection.send(msg);
  }

  /** Sends {@code removed}. */
  public void removed(String collection, String docId) {
    connection.send(
        TestDdpServer.message("removed").put("collection", collection).put("id", docId));
  }

  /** Sends {@code ready} for this subscription. */
  public void ready() {
    ObjectNode msg = TestDdpServer.message("ready");
    msg.putArray("subs").add(id);
    connection.send(msg);
  }

  /** Ends the subscription from the server side with a plain {@code nosub}. */
  public void nosub() {
    stop();
    connection.send(TestDdpServer.message("nosub").put("id", id));
  }

  /** Ends the subscription from the server side with a {@code nosub} carrying an error. */
  public void nosub(String error, String reason) {
    stop();
    ObjectNode msg = TestDdpServer.message("nosub").put("id", id);
    msg.set("error", TestDdpServer.error(error, reason));
    connection.send(msg);
  }

  void stop() {
    active = false;
    connection.liveSubscriptions().remove(id, this);
  }

  @Override
  public String toString() {
    return "ServerSubscription{" + name + " id=" + id + " on " + connection.id() + "}";
  }
}
