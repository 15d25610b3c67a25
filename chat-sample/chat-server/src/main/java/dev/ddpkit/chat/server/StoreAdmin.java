package dev.ddpkit.chat.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The admin side of {@link ChatServer} on its store: seeding users, rooms and resume tokens,
 * reading a room back as the server holds it, pruning. Arguments are checked here, on the
 * caller's thread; every write goes through the store's writer and is waited for, so it is durable
 * when the call returns.
 */
final class StoreAdmin {
  private static final Duration WRITE_TIMEOUT = Duration.ofSeconds(30);

  private final ChatStore store;
  private final Secrets secrets;
  private final ServerConfig cfg;

  StoreAdmin(ChatStore store, Secrets secrets, ServerConfig cfg) {
    this.store = store;
    this.secrets = secrets;
    this.cfg = cfg;
  }

  /** See {@link ChatServer#createUser}. */
  String createUser(String username, String password) {
    requireName("username", username);
    if (password == null || password.isEmpty()) {
      throw new IllegalArgumentException("password must not be empty");
    }
    ObjectNode user = Frames.object();
    String id = secrets.newId();
    user.put("_id", id);
    user.put("username", username);
    user.put("password", secrets.hashDigest(Secrets.sha256Hex(password)));
    user.put("createdAt", cfg.clock.millis());
    await(store.createUser(username, user));
    return id;
  }

  /** See {@link ChatServer#createRoom}. */
  void createRoom(String rid, String... members) {
    requireName("rid", rid);
    Objects.requireNonNull(members, "members");
    List<String> names = new ArrayList<>();
    for (String m : members) {
      requireName("member", m);
      if (store.reads().user(m) == null) {
        throw new IllegalArgumentException("no such user: " + m);
      }
      names.add(m);
    }
    await(store.createRoom(rid, names));
  }

  /** See {@link ChatServer#seedDemo}. */
  boolean seedDemo() {
    if (!store.reads().hasNoUsers()) {
      return false;
    }
    for (String u : List.of("alice", "bob", "carol")) {
      createUser(u, u + "-pw");
    }
    createRoom("general", "alice", "bob", "carol");
    return true;
  }

  /** See {@link ChatServer#issueToken}. */
  String issueToken(String username) {
    ObjectNode user = username == null ? null : store.reads().user(username);
    if (user == null) {
      throw new IllegalArgumentException("no such user: " + username);
    }
    String token = secrets.newToken();
    long now = cfg.clock.millis();
    ObjectNode record = Frames.object();
    record.put("userId", Frames.text(user, "_id"));
    record.put("username", username);
    record.put("created", now);
    record.put("expires", now + cfg.tokenTtl.toMillis());
    await(store.putToken(Secrets.tokenKey(token), record, cfg.maxTokensPerUser));
    return token;
  }

  /** See {@link ChatServer#messageCount}. */
  long messageCount(String rid) {
    return store.reads().messageCount(rid);
  }

  /** See {@link ChatServer#storedMessages}. */
  List<StoredMessage> storedMessages(String rid) {
    List<StoredMessage> out = new ArrayList<>();
    for (ObjectNode m : store.reads().history(rid, Long.MAX_VALUE, Integer.MAX_VALUE)) {
      out.add(new StoredMessage(m.path("_id").asText(), m.path("u").path("username").asText(),
          m.path("msg").asText(), m.path("ts").path("$date").asLong(), m.has("editedAt")));
    }
    Collections.reverse(out);
    return out;
  }

  /** See {@link ChatServer#pruneMessages}. */
  int pruneMessages(String rid, long from, long to, List<String> usernames, boolean withIds) {
    Objects.requireNonNull(rid, "rid");
    List<String> users = List.copyOf(usernames);
    return await(store.prune(rid, from, to, users, withIds));
  }

  private static void requireName(String field, String value) {
    if (value == null || !DdpHandler.NAME.matcher(value).matches()) {
      throw new IllegalArgumentException(
          field + " must be 1 to 64 characters of A-Z a-z 0-9 . _ -: " + value);
    }
  }

  private static <T> T await(CompletableFuture<T> f) {
    try {
      return f.get(WRITE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while writing", e);
    } catch (TimeoutException e) {
      throw new IllegalStateException("store write took over " + WRITE_TIMEOUT, e);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof RuntimeException) {
        throw (RuntimeException) c;
      }
      throw new IllegalStateException("store write failed: " + c, c);
    }
  }
}
