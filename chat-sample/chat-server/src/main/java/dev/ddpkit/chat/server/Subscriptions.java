package dev.ddpkit.chat.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.chat.protocol.RocketChatNames;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.java_websocket.WebSocket;

/**
 * The {@code stream-room-messages} subscriptions of every connection: {@code sub} and {@code
 * unsub} (their frames' shape already checked by {@link DdpHandler}), their end at logout or
 * close, and the broadcast of durable messages to each room's subscribers. {@code sub}, {@code
 * unsub} and a logout run on the connection's socket worker thread, {@link #closed} when the
 * socket layer reports the close; {@link #broadcast} on the store's writer thread; the stats on
 * any thread. One monitor orders a subscription's {@code ready}
 * against broadcasts, so a subscriber sees every event after its ready and none before.
 */
final class Subscriptions {
  static final String STREAM = RocketChatNames.STREAM_ROOM_MESSAGES;
  /** Rocket.Chat's room events stream; here its {@code <rid>/deleteMessage[Bulk]} events. */
  static final String NOTIFY_ROOM = RocketChatNames.STREAM_NOTIFY_ROOM;
  static final String DELETE_MESSAGE = RocketChatNames.EVENT_DELETE_MESSAGE;
  static final String DELETE_MESSAGE_BULK = RocketChatNames.EVENT_DELETE_MESSAGE_BULK;

  private final ChatStore store;
  private final Counters counters;
  private final DdpRateLimiter rateLimiter;
  /** The handler's open connections (a live view): a closed one is not subscribed. */
  private final Set<Session> sessions;
  private final Map<String, Set<SessionStreams>> roomSubscribers = new ConcurrentHashMap<>();
  /** {@code stream-notify-room} subscribers by event name ({@code rid/deleteMessage}). */
  private final Map<String, Set<SessionStreams>> eventSubscribers = new ConcurrentHashMap<>();
  /** Orders "ready" against broadcasts, so a subscriber sees every event after its ready. */
  private final Object streams = new Object();
  private volatile Endpoint endpoint;

  Subscriptions(ChatStore store, Counters counters, DdpRateLimiter rateLimiter,
      Set<Session> sessions) {
    this.store = store;
    this.counters = counters;
    this.rateLimiter = rateLimiter;
    this.sessions = sessions;
  }

  void attach(Endpoint endpoint) {
    this.endpoint = endpoint;
  }

  /** A well-formed {@code sub}: answered with {@code ready}, or {@code nosub} and an error. */
  void subscribe(Session s, String id, String name, JsonNode params) {
    if (s.streams.has(id)) {
      return; // DDP: a repeated sub id is ignored
    }
    long wait = rateLimiter.subscription(name, Logins.connKey(s));
    if (wait > 0) {
      counters.rateLimited.incrementAndGet();
      nosub(s, id, MethodError.tooManyRequests(wait));
      return;
    }
    if (s.user == null) {
      nosub(s, id, new MethodError("not-allowed", "Not allowed"));
      return;
    }
    if (name.equals(NOTIFY_ROOM)) {
      subscribeToRoomEvent(s, id, params);
      return;
    }
    if (!name.equals(STREAM)) {
      String clipped = DdpHandler.clip(name);
      nosub(s, id, new MethodError(404, "Subscription '" + clipped + "' not found"));
      return;
    }
    JsonNode ridNode = params == null ? null : params.get(0);
    String rid = ridNode != null && ridNode.isTextual() ? ridNode.textValue() : null;
    if (rid == null || !store.reads().isMember(rid, s.username())) {
      nosub(s, id, new MethodError("not-allowed", "Not allowed"));
      return;
    }
    register(s, id, rid, false);
  }

  /**
   * {@code stream-notify-room} with {@code ["<rid>/deleteMessage" | "<rid>/deleteMessageBulk",
   * ...]}: a member of the room is subscribed; any other event name is refused as not allowed,
   * as Rocket.Chat refuses an event it does not let the user read.
   */
  private void subscribeToRoomEvent(Session s, String id, JsonNode params) {
    JsonNode nameNode = params == null ? null : params.get(0);
    String eventName = nameNode != null && nameNode.isTextual() ? nameNode.textValue() : "";
    int slash = eventName.indexOf('/');
    String rid = slash < 0 ? null : eventName.substring(0, slash);
    String event = slash < 0 ? "" : eventName.substring(slash + 1);
    if (rid == null || !(event.equals(DELETE_MESSAGE) || event.equals(DELETE_MESSAGE_BULK))
        || !store.reads().isMember(rid, s.username())) {
      nosub(s, id, new MethodError("not-allowed", "Not allowed"));
      return;
    }
    register(s, id, eventName, true);
  }

  /**
   * Records subscription {@code id} of {@code s} to {@code key} (a room id, or for {@code event}
   * an event name) in the session's own book and the key's subscriber set, and confirms it with
   * ready; all under the streams monitor, so a broadcast sees both or neither. The streams are
   * read once: a connection resumed meanwhile shares them with the one that resumed it ({@link
   * Session#resumeOn}). Nothing for a session closed meanwhile.
   */
  private void register(Session s, String id, String key, boolean event) {
    synchronized (streams) {
      if (!sessions.contains(s)) {
        return; // closed meanwhile
      }
      SessionStreams st = s.streams;
      (event ? st.events : st.rooms).put(id, key);
      (event ? eventSubscribers : roomSubscribers)
          .computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(st);
      ObjectNode ready = Frames.frame("ready");
      ready.putArray("subs").add(id);
      DdpHandler.send(s, ready);
    }
  }

  /** A well-formed {@code unsub}: ends the subscription (if any) and confirms with nosub. */
  void unsubscribeAndConfirm(Session s, String id) {
    unsubscribe(s, id);
    ObjectNode nosub = Frames.frame("nosub");
    nosub.put("id", id);
    DdpHandler.send(s, nosub);
  }

  private void unsubscribe(Session s, String id) {
    synchronized (streams) {
      SessionStreams st = s.streams;
      String rid = st.rooms.remove(id);
      if (rid != null && !st.rooms.containsValue(rid)) {
        Set<SessionStreams> set = roomSubscribers.get(rid);
        if (set != null) {
          set.remove(st);
        }
      }
      String eventName = st.events.remove(id);
      if (eventName != null && !st.events.containsValue(eventName)) {
        Set<SessionStreams> set = eventSubscribers.get(eventName);
        if (set != null) {
          set.remove(st);
        }
      }
    }
  }

  /** Ends every subscription of {@code s}, telling it with a nosub each (logout, new user). */
  void dropSubscriptions(Session s) {
    List<String> ids = new ArrayList<>(s.streams.rooms.keySet());
    ids.addAll(s.streams.events.keySet());
    for (String id : ids) {
      unsubscribe(s, id);
      ObjectNode nosub = Frames.frame("nosub");
      nosub.put("id", id);
      DdpHandler.send(s, nosub);
    }
  }

  private void nosub(Session s, String id, MethodError error) {
    ObjectNode nosub = Frames.frame("nosub");
    nosub.put("id", id);
    nosub.set("error", error.toJson());
    DdpHandler.send(s, nosub);
  }

  /** Sends durable messages to their rooms' subscribers; called by the store's writer. */
  void broadcast(List<ObjectNode> messages) {
    counters.messagesStored.addAndGet(messages.size());
    Endpoint ep = endpoint;
    for (ObjectNode msg : messages) {
      sendToRoom(ep, msg);
    }
  }

  /** One message (new or edited) to its room's stream subscribers. */
  private void sendToRoom(Endpoint ep, ObjectNode msg) {
    String rid = msg.path("rid").asText();
    send(ep, roomSubscribers, rid, event(STREAM, rid, msg));
  }

  private static String event(String collection, String eventName, ObjectNode arg) {
    ObjectNode changed = Frames.frame("changed");
    changed.put("collection", collection);
    changed.put("id", "id");
    ObjectNode fields = changed.putObject("fields");
    fields.put("eventName", eventName);
    fields.putArray("args").add(arg);
    return Frames.write(changed);
  }

  private void send(Endpoint ep, Map<String, Set<SessionStreams>> subscribers, String key,
      String text) {
    List<Session> overflowed = new ArrayList<>();
    synchronized (streams) {
      Set<SessionStreams> subs = subscribers.get(key);
      if (subs != null && !subs.isEmpty() && ep != null) {
        List<WebSocket> conns = new ArrayList<>(subs.size());
        for (SessionStreams x : subs) {
          // null: held or forwarded
          WebSocket c = x.current.countForBroadcast(text, overflowed::add);
          if (c != null) {
            conns.add(c);
          }
        }
        ep.broadcast(text, conns);
      }
    }
    overflowed.forEach(Session::overflowed); // ends them, outside the lock
  }

  /**
   * Sends durable edits and deletions; called by the store's writer. An edit goes on the room's
   * {@code stream-room-messages} as the whole message (same {@code _id}, newer {@code
   * _updatedAt}); a deletion only on {@code stream-notify-room} as {@code <rid>/deleteMessage}
   * {@code {_id}}, as Rocket.Chat does with {@code Message_ShowDeletedStatus} off (its default).
   */
  void broadcastChanges(List<ChatStore.Change> changes) {
    Endpoint ep = endpoint;
    for (ChatStore.Change c : changes) {
      switch (c.kind()) {
        case EDIT -> sendToRoom(ep, c.doc());
        case DELETE -> {
          ObjectNode arg = Frames.object();
          arg.put("_id", c.doc().path("_id").asText());
          String eventName = RocketChatNames.roomEvent(c.rid(), DELETE_MESSAGE);
          send(ep, eventSubscribers, eventName, event(NOTIFY_ROOM, eventName, arg));
        }
        case BULK_DELETE -> {
          String eventName = RocketChatNames.roomEvent(c.rid(), DELETE_MESSAGE_BULK);
          send(ep, eventSubscribers, eventName, event(NOTIFY_ROOM, eventName, c.doc()));
        }
        default -> throw new AssertionError("Unexpected change: " + c.kind());
      }
    }
  }

  /** Forgets the subscriptions of a connection already removed from the open ones. */
  void closed(Session s) {
    synchronized (streams) {
      SessionStreams st = s.streams;
      for (String rid : st.rooms.values()) {
        Set<SessionStreams> set = roomSubscribers.get(rid);
        if (set != null) {
          set.remove(st);
        }
      }
      st.rooms.clear();
      for (String eventName : st.events.values()) {
        Set<SessionStreams> set = eventSubscribers.get(eventName);
        if (set != null) {
          set.remove(st);
        }
      }
      st.events.clear();
    }
  }

  /**
   * Entries in a room's subscriber set: the sessions a broadcast to it visits, open or held (for
   * tests: an entry left by a session that ended would be a leak the stats do not show).
   */
  int subscriberEntries(String rid) {
    Set<SessionStreams> set = roomSubscribers.get(rid);
    return set == null ? 0 : set.size();
  }

  /** Active subscriptions per room. */
  Map<String, Integer> subscriptionsByRoom() {
    Map<String, Integer> out = new HashMap<>();
    for (Session s : sessions) {
      for (String rid : s.streams.rooms.values()) {
        out.merge(rid, 1, Integer::sum);
      }
    }
    return out;
  }
}
