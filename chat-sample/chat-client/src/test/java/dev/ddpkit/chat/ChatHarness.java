package dev.ddpkit.chat;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.ddp.memory.InMemoryTransportFactory;
import dev.ddpkit.ddp.memory.ServerEnd;
import dev.ddpkit.reconnect.Backoff;
import dev.ddpkit.reconnect.Cancellable;
import dev.ddpkit.reconnect.Scheduler;
import dev.ddpkit.reconnect.VirtualScheduler;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.UnaryOperator;

/**
 * A {@link ChatClient} on virtual time and an in-memory transport, every step on the test thread:
 * the test plays the server frame by frame (answers, refusals, stream events, drops), and reads
 * what the client sent as a transcript ("login", "sub r1", "loadHistory r1"). No socket, no
 * sleeping: time moves only through {@link #advance}.
 */
final class ChatHarness implements AutoCloseable {
  static final String URL = "ws://localhost:3000/websocket";
  static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  final VirtualScheduler time;
  /** The server's wall clock: {@link #T0} plus the virtual time elapsed. */
  final Clock clock;
  final InMemoryTransportFactory net = new InMemoryTransportFactory();
  /** Every frame the client sent, with the virtual time it was sent at, pings included. */
  final WireRecorder wire;
  final Recorder recorder = new Recorder();
  final ChatClient client;
  private final ArrayDeque<Frame> inbox = new ArrayDeque<>();
  private ServerEnd end;
  private int sessions;

  /** A client of user "alice" (password "pw"), reconnecting after a fixed 1 s. */
  ChatHarness(UnaryOperator<ChatClientBuilder> config) {
    this(Duration.ZERO, b -> config.apply(b.username("alice").password("pw")));
  }

  /** A client logging in with a resume token instead of a password. */
  static ChatHarness withToken(String token, UnaryOperator<ChatClientBuilder> config) {
    return new ChatHarness(Duration.ZERO, b -> config.apply(b.token(token)));
  }

  /** A client of "alice" whose device clock runs {@code ahead} of the server's (virtual) time. */
  static ChatHarness withClockAhead(Duration ahead, UnaryOperator<ChatClientBuilder> config) {
    return new ChatHarness(ahead, b -> config.apply(b.username("alice").password("pw")));
  }

  /** A client of "alice" on {@code time}, which a test shares with other clients. */
  static ChatHarness on(VirtualScheduler time, UnaryOperator<ChatClientBuilder> config) {
    return new ChatHarness(time, Duration.ZERO,
        b -> config.apply(b.username("alice").password("pw")));
  }

  private ChatHarness(Duration deviceAhead, UnaryOperator<ChatClientBuilder> config) {
    this(new VirtualScheduler(T0), deviceAhead, config);
  }

  private ChatHarness(
      VirtualScheduler time, Duration deviceAhead, UnaryOperator<ChatClientBuilder> config) {
    this.time = time;
    this.clock = new VirtualClock(time);
    this.wire = new WireRecorder(net, time);
    ChatClientBuilder b =
        ChatClient.builder()
            .url(URL)
            .backoff(Backoff.fixed(Duration.ofSeconds(1)))
            .stableAfter(Duration.ofSeconds(10))
            .scheduler(deviceAhead.isZero() ? time : new DeviceTime(time, deviceAhead))
            .executor(Runnable::run)
            .transportFactory(wire)
            .random(new Random(7))
            .listener(recorder)
            // The server a test plays is an older Rocket.Chat (no messages/get, no deletions
            // stream) unless the test says otherwise: see ChatHarness.current().
            .liveDeletions(false)
            .messagesGet(false)
            .name("harness");
    client = config.apply(b).build();
  }

  /** Starts the client; its first connection opens and the server says connected. */
  ChatHarness start() {
    client.start();
    return accept();
  }

  /** The latest dial opens, the client says connect, the server answers connected. */
  ChatHarness accept() {
    end = net.last();
    end.open();
    Frame connect = nextFrame();
    assertThat(connect.msg()).as("first frame").isEqualTo("connect");
    end.send("{'msg':'connected','session':'s" + (++sessions) + "'}");
    return this;
  }

  /** The latest dial fails (the server is down); the next comes after the 1 s backoff. */
  ChatHarness refuse() {
    net.last().closeFromServer(1006, "");
    return this;
  }

  /** The server end of the latest connection. */
  ServerEnd end() {
    return end;
  }

  /** The server cuts the connection (1006); the client's next dial comes after the 1 s backoff. */
  ChatHarness drop() {
    end.closeFromServer(1006, "");
    inbox.clear();
    return this;
  }

  /** The connection drops and the client reconnects 1 s later. */
  ChatHarness reconnect() {
    drop();
    int before = net.count();
    advance(Duration.ofSeconds(1));
    assertThat(net.count()).as("dials after the backoff").isEqualTo(before + 1);
    return accept();
  }

  /**
   * The connection drops and the client reconnects 1 s later asking to resume its session; the
   * server resumes it (the same session id back). Returns the {@code connect} the client sent.
   */
  Frame resume() {
    drop();
    int before = net.count();
    advance(Duration.ofSeconds(1));
    assertThat(net.count()).as("dials after the backoff").isEqualTo(before + 1);
    ServerEnd previous = end;
    end = net.last();
    end.open();
    Frame connect = nextFrame();
    assertThat(connect.msg()).as("first frame").isEqualTo("connect");
    assertThat(connect.json().path("session").asText()).isEqualTo("s" + sessions);
    assertThat(connect.json().path("receivedCount").asLong()).isEqualTo(previous.sentCount());
    end.send("{'msg':'connected','session':'s" + sessions + "'}");
    return connect;
  }

  /** Lets virtual time pass, running every timer due. */
  ChatHarness advance(Duration d) {
    time.advance(d);
    return this;
  }

  /** Returns the frames the client sent since the last read, summarised, and consumes them. */
  List<String> sent() {
    List<String> out = new ArrayList<>();
    for (Frame f; (f = poll()) != null; ) {
      out.add(f.summary());
    }
    return out;
  }

  /** Reads the next frame the client sent; fails if there is none or it is not {@code summary}. */
  Frame expect(String summary) {
    Frame f = poll();
    assertThat(f).as("a frame " + summary + " sent by the client").isNotNull();
    assertThat(f.summary()).isEqualTo(summary);
    return f;
  }

  /**
   * Lets virtual time pass in 10 ms steps, up to {@code max}, until the client sends a frame; fails
   * if none comes or it is not {@code summary}.
   */
  Frame within(Duration max, String summary) {
    for (Duration waited = Duration.ZERO; inbox.isEmpty() && waited.compareTo(max) < 0;
        waited = waited.plusMillis(10)) {
      if (peek()) {
        break;
      }
      advance(Duration.ofMillis(10));
    }
    return expect(summary);
  }

  /**
   * Reads as many frames as {@code summaries}, in any order; fails unless they are these. Returns
   * them by summary.
   */
  Map<String, Frame> expectAll(String... summaries) {
    Map<String, Frame> out = new LinkedHashMap<>();
    List<String> got = new ArrayList<>();
    for (int i = 0; i < summaries.length; i++) {
      Frame f = poll();
      if (f == null) {
        break;
      }
      got.add(f.summary());
      out.put(f.summary(), f);
    }
    assertThat(got).as("frames sent by the client").containsExactlyInAnyOrder(summaries);
    return out;
  }

  /** Reads the next frame the client sent, or null if there is none. */
  Frame nextOrNull() {
    return poll();
  }

  /** Reads the next frame the client sent; fails if there is none. */
  Frame next() {
    return nextFrame();
  }

  /** Asserts that the client sent nothing (pings aside) since the last read. */
  ChatHarness expectNothing() {
    assertThat(sent()).as("frames sent by the client").isEmpty();
    return this;
  }

  /** Answers a call with {@code result} (single-quoted JSON), or with no result field if null. */
  ChatHarness result(Frame call, String result) {
    ObjectNode r = NODES.objectNode().put("msg", "result").put("id", call.id());
    if (result != null) {
      r.set("result", ServerEnd.json(result));
    }
    end.sendRaw(r.toString());
    return this;
  }

  /** Answers a login with a token. */
  ChatHarness loggedIn(Frame login) {
    return result(login, "{'id':'u1','token':'tok-1','tokenExpires':{'$date':1}}");
  }

  /** Answers a call with an error; {@code timeToReset} (ms) in its details if not null. */
  ChatHarness error(Frame call, String error, Long timeToReset) {
    return error(call, error, error, timeToReset);
  }

  /** Answers a call with an error and its reason (the words the user sees). */
  ChatHarness error(Frame call, String error, String reason, Long timeToReset) {
    ObjectNode r = NODES.objectNode().put("msg", "result").put("id", call.id());
    r.set("error", errorNode(error, reason, timeToReset));
    end.sendRaw(r.toString());
    return this;
  }

  /** The server sends this frame (single-quoted JSON allowed), whatever it is. */
  ChatHarness raw(String json) {
    end.send(json);
    return this;
  }

  /** The server says a subscription is ready. */
  ChatHarness ready(Frame sub) {
    ObjectNode r = NODES.objectNode().put("msg", "ready");
    r.putArray("subs").add(sub.id());
    end.sendRaw(r.toString());
    return this;
  }

  /** The server refuses or ends a subscription with an error. */
  ChatHarness nosub(Frame sub, String error, Long timeToReset) {
    return nosub(sub, error, error, timeToReset);
  }

  /** The server refuses or ends a subscription with an error and its reason. */
  ChatHarness nosub(Frame sub, String error, String reason, Long timeToReset) {
    ObjectNode r = NODES.objectNode().put("msg", "nosub").put("id", sub.id());
    r.set("error", errorNode(error, reason, timeToReset));
    end.sendRaw(r.toString());
    return this;
  }

  /** The server ends a subscription with no error. */
  ChatHarness ended(Frame sub) {
    end.sendRaw(NODES.objectNode().put("msg", "nosub").put("id", sub.id()).toString());
    return this;
  }

  /** The server pushes a message on a room's stream. */
  ChatHarness push(String rid, String id, String text, long tsMillis) {
    ObjectNode r =
        NODES.objectNode()
            .put("msg", "changed")
            .put("collection", ChatClient.STREAM)
            .put("id", "id");
    ObjectNode fields = r.putObject("fields");
    fields.put("eventName", rid);
    fields.putArray("args").add(message(rid, id, text, tsMillis));
    end.sendRaw(r.toString());
    return this;
  }

  /** The server pushes an edit on a room's stream: the message with a newer {@code _updatedAt}. */
  ChatHarness pushEdit(String rid, String id, String text, long tsMillis, long updatedMillis) {
    ObjectNode r =
        NODES.objectNode()
            .put("msg", "changed")
            .put("collection", ChatClient.STREAM)
            .put("id", "id");
    ObjectNode fields = r.putObject("fields");
    fields.put("eventName", rid);
    fields.putArray("args").add(edited(rid, id, text, tsMillis, updatedMillis));
    end.sendRaw(r.toString());
    return this;
  }

  /** The server says on {@code stream-notify-room} that a message was deleted. */
  ChatHarness pushDelete(String rid, String id) {
    return pushRoomEvent(rid + "/deleteMessage", NODES.objectNode().put("_id", id));
  }

  /** The server sends a {@code stream-notify-room} event. */
  ChatHarness pushRoomEvent(String eventName, ObjectNode arg) {
    ObjectNode r =
        NODES.objectNode()
            .put("msg", "changed")
            .put("collection", "stream-notify-room")
            .put("id", "id");
    ObjectNode fields = r.putObject("fields");
    fields.put("eventName", eventName);
    fields.putArray("args").add(arg);
    end.sendRaw(r.toString());
    return this;
  }

  /** Bob's message as edited by bob at {@code updatedMillis}. */
  static ObjectNode edited(String rid, String id, String text, long tsMillis, long updatedMillis) {
    ObjectNode m = message(rid, id, text, tsMillis);
    m.putObject("_updatedAt").put("$date", updatedMillis);
    m.putObject("editedAt").put("$date", updatedMillis);
    m.putObject("editedBy").put("_id", "u2").put("username", "bob");
    return m;
  }

  /** A {@code messages/get} answer since a time: {@code {updated, deleted}}. */
  static String changes(List<ObjectNode> updated, Map<String, Long> deleted) {
    ObjectNode r = NODES.objectNode();
    ArrayNode u = r.putArray("updated");
    updated.forEach(u::add);
    ArrayNode d = r.putArray("deleted");
    deleted.forEach((id, at) -> d.addObject().put("_id", id).putObject("_deletedAt")
        .put("$date", at));
    return r.toString();
  }

  /** A Rocket.Chat message document by bob. */
  static ObjectNode message(String rid, String id, String text, long tsMillis) {
    ObjectNode m = NODES.objectNode().put("_id", id).put("rid", rid).put("msg", text);
    m.putObject("u").put("_id", "u2").put("username", "bob");
    m.putObject("ts").put("$date", tsMillis);
    return m;
  }

  /** A {@code loadHistory} answer ({@code {"messages": [...]}}) as single-quote-free JSON. */
  static String history(ObjectNode... messages) {
    ObjectNode r = NODES.objectNode();
    ArrayNode a = r.putArray("messages");
    for (ObjectNode m : messages) {
      a.add(m);
    }
    return r.toString();
  }

  /** A {@code loadMissedMessages} answer (an array). */
  static String missed(ObjectNode... messages) {
    ArrayNode a = NODES.arrayNode();
    for (ObjectNode m : messages) {
      a.add(m);
    }
    return a.toString();
  }

  private static ObjectNode errorNode(String error, String reason, Long timeToReset) {
    ObjectNode e = NODES.objectNode().put("isClientSafe", true).put("error", error);
    e.put("reason", reason).put("message", reason + " [" + error + "]")
        .put("errorType", "Meteor.Error");
    if (timeToReset != null) {
      e.putObject("details").put("timeToReset", timeToReset);
    }
    return e;
  }

  private Frame poll() {
    if (inbox.isEmpty() && end != null) {
      for (JsonNode n : end.drain()) {
        String msg = n.path("msg").asText();
        if (!msg.equals("ping") && !msg.equals("pong")) {
          inbox.add(new Frame(n));
        }
      }
    }
    return inbox.poll();
  }

  /** Moves what the client sent into the inbox; whether there is anything. */
  private boolean peek() {
    Frame f = poll();
    if (f != null) {
      inbox.addFirst(f);
    }
    return f != null;
  }

  private Frame nextFrame() {
    Frame f = poll();
    assertThat(f).as("a frame from the client").isNotNull();
    return f;
  }

  @Override
  public void close() {
    client.close();
  }

  /** One frame the client sent. */
  record Frame(JsonNode json) {
    String msg() {
      return json.path("msg").asText();
    }

    String id() {
      return json.path("id").asText();
    }

    JsonNode params() {
      return json.path("params");
    }

    /**
     * "login", "sub r1", "unsub ID", "loadHistory r1", "loadMissedMessages r1", "sendMessage r1
     * text", "rooms/get", or the frame as JSON for anything else.
     */
    String summary() {
      switch (msg()) {
        case "sub":
          return "sub " + params().path(0).asText();
        case "unsub":
          return "unsub";
        case "method":
          String m = json.path("method").asText();
          return switch (m) {
            case "login", "rooms/get" -> m;
            case "loadHistory", "loadMissedMessages", "messages/get" ->
                m + " " + params().path(0).asText();
            case "updateMessage" -> m + " " + params().path(0).path("_id").asText() + " "
                + params().path(0).path("msg").asText();
            case "deleteMessage" -> m + " " + params().path(0).path("_id").asText();
            case "sendMessage" -> m + " " + params().path(0).path("rid").asText() + " "
                + params().path(0).path("msg").asText();
            default -> m + " " + params();
          };
        default:
          return json.toString();
      }
    }
  }

  /**
   * The time of a device whose wall clock runs {@code ahead} of the server's: the same timers and
   * monotonic clock as {@code time}, the wall time ahead.
   */
  private static final class DeviceTime implements Scheduler {
    private final VirtualScheduler time;
    private final Duration ahead;

    DeviceTime(VirtualScheduler time, Duration ahead) {
      this.time = time;
      this.ahead = ahead;
    }

    @Override
    public Cancellable schedule(Duration delay, Runnable task) {
      return time.schedule(delay, task);
    }

    @Override
    public long nanoTime() {
      return time.nanoTime();
    }

    @Override
    public Instant wallTime() {
      return time.wallTime().plus(ahead);
    }
  }

  /** A wall clock that reads the virtual time. */
  private static final class VirtualClock extends Clock {
    private final VirtualScheduler time;

    VirtualClock(VirtualScheduler time) {
      this.time = time;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      throw new UnsupportedOperationException("UTC only");
    }

    @Override
    public Instant instant() {
      return time.wallTime();
    }
  }
}
