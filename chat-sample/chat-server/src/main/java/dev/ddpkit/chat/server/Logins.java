package dev.ddpkit.chat.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.reconnect.Ticker;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who a connection is: the {@code login} method (password or resume token), {@code logout}, and
 * the failed-login limits, all keyed by the remote address: per connection, per username from one
 * address, and per address (its cap across every username). None is per username alone: failures
 * from one address then lock that user out everywhere, so anyone could keep alice out; keyed by
 * address, a guesser is slowed and alice's own login from elsewhere goes through. Timed by the
 * server's {@link dev.ddpkit.reconnect.Ticker}. Called by {@link
 * MethodCalls} on the socket worker thread of the connection (one frame of a connection at a
 * time), and by {@link DdpHandler#closed} once it has ended; the limiters are shared by every
 * connection and synchronized.
 */
final class Logins {
  private static final Logger log = LoggerFactory.getLogger(Logins.class);

  static final String LOGGED_OUT = "You've been logged out by the server. Please log in again.";
  /**
   * The one answer to a failed password login, whether the user exists or not: two different
   * texts would tell a guesser which usernames are real (and undo the dummy hash in Secrets).
   */
  static final String BAD_CREDENTIALS = "Incorrect username or password";

  private final ChatStore store;
  private final Secrets secrets;
  private final Counters counters;
  private final Subscriptions subscriptions;
  /** Failed logins per connection, and per username from one address. */
  private final LoginLimiter limiter;
  /** Failed logins per remote address, whatever the connection or username. */
  private final LoginLimiter addressLimiter;
  private final Clock clock;
  private final Ticker ticker;
  private final Duration tokenTtl;
  private final int maxTokensPerUser;

  Logins(ChatStore store, Secrets secrets, Counters counters, ServerConfig cfg,
      Subscriptions subscriptions) {
    this.store = store;
    this.secrets = secrets;
    this.counters = counters;
    this.subscriptions = subscriptions;
    this.limiter = new LoginLimiter(cfg.loginFailures, cfg.loginWindow.toMillis(), 100_000);
    this.addressLimiter = new LoginLimiter(
        cfg.addressLoginFailures, cfg.addressLoginWindow.toMillis(), 100_000);
    this.clock = cfg.clock;
    this.ticker = cfg.ticker;
    this.tokenTtl = cfg.tokenTtl;
    this.maxTokensPerUser = cfg.maxTokensPerUser;
  }

  /** The {@code login} method: with a password, or with {@code resume} and a token. */
  JsonNode login(Session s, ArrayNode p) throws MethodError {
    JsonNode arg = p.get(0);
    if (!(arg instanceof ObjectNode) || p.size() != 1) {
      throw MethodError.invalid("error-invalid-params", "login takes one object");
    }
    long now = clock.millis();
    long tick = TimeUnit.NANOSECONDS.toMillis(ticker.read());
    String token = Frames.text(arg, "resume");
    if (token != null) {
      return resume(s, token, now, tick);
    }
    JsonNode user = arg.get("user");
    JsonNode password = arg.get("password");
    String username = Frames.text(user, "username");
    // Meteor's accounts take a plain-text password from clients that cannot hash it.
    String plain = password != null && password.isTextual() ? password.textValue() : null;
    String digest = plain != null ? Secrets.sha256Hex(plain) : Frames.text(password, "digest");
    String algorithm = Frames.text(password, "algorithm");
    if (username == null || username.length() > 64 || digest == null
        || (algorithm != null && !algorithm.equals("sha-256"))) {
      throw MethodError.invalid("error-invalid-params",
          "login takes {user: {username}, password: {digest, algorithm: \"sha-256\"} or a"
              + " string} or {resume: token}");
    }
    String userKey = "u:" + username + "@" + addressKey(s);
    refuseIfLimited(tick, s, connKey(s), userKey);
    ObjectNode stored = store.reads().user(username);
    boolean ok = Secrets.isDigest(digest)
        && secrets.verify(digest, stored == null ? null : Frames.text(stored, "password"));
    if (!ok) {
      counters.loginsFailed.incrementAndGet();
      recordFailure(tick, s, connKey(s), userKey);
      throw new MethodError(403, BAD_CREDENTIALS);
    }
    String newToken = secrets.newToken();
    String key = Secrets.tokenKey(newToken);
    long expires = now + tokenTtl.toMillis();
    ObjectNode record = tokenRecord(stored, now, expires);
    await(store.putToken(key, record, maxTokensPerUser));
    becomeUser(s, publicUser(stored), key);
    counters.loginsOk.incrementAndGet();
    return loginResult(stored, newToken, expires, "password");
  }

  private JsonNode resume(Session s, String token, long now, long tick) throws MethodError {
    refuseIfLimited(tick, s, connKey(s));
    String key = token.length() > 512 ? null : Secrets.tokenKey(token);
    ObjectNode record = key == null ? null : store.reads().token(key);
    long expires = record == null ? 0 : record.path("expires").asLong(0);
    if (record == null || expires <= now) {
      counters.loginsFailed.incrementAndGet();
      recordFailure(tick, s, connKey(s));
      if (record != null) {
        store.removeToken(key); // expired: forget it; nobody waits for this write
      }
      throw new MethodError(403, LOGGED_OUT);
    }
    ObjectNode stored = store.reads().user(record.path("username").asText());
    if (stored == null) {
      counters.loginsFailed.incrementAndGet();
      throw new MethodError(403, LOGGED_OUT);
    }
    becomeUser(s, publicUser(stored), key);
    counters.loginsOk.incrementAndGet();
    return loginResult(stored, token, expires, "resume");
  }

  /** Refuses the attempt when the connection's address or any of {@code keys} is limited. */
  private void refuseIfLimited(long now, Session s, String... keys) throws MethodError {
    long wait = addressLimiter.waitMillis(addressKey(s), now);
    for (String k : keys) {
      wait = Math.max(wait, limiter.waitMillis(k, now));
    }
    if (wait > 0) {
      counters.loginsFailed.incrementAndGet();
      long seconds = (wait + 999) / 1000;
      ObjectNode details = Frames.object();
      details.put("timeToReset", wait);
      throw new MethodError("too-many-requests",
          "Too many failed logins; try again in " + seconds + " seconds", details);
    }
  }

  /** Counts a failed login against the connection's address and each of {@code keys}. */
  private void recordFailure(long now, Session s, String... keys) {
    addressLimiter.failed(addressKey(s), now);
    for (String k : keys) {
      limiter.failed(k, now);
    }
  }

  private static ObjectNode tokenRecord(ObjectNode user, long now, long expires) {
    ObjectNode r = Frames.object();
    r.put("userId", Frames.text(user, "_id"));
    r.put("username", Frames.text(user, "username"));
    r.put("created", now);
    r.put("expires", expires);
    return r;
  }

  /** The user as others may see it: id and username, never the password hash. */
  static ObjectNode publicUser(ObjectNode stored) {
    ObjectNode u = Frames.object();
    u.put("_id", Frames.text(stored, "_id"));
    u.put("username", Frames.text(stored, "username"));
    return u;
  }

  private static ObjectNode loginResult(ObjectNode user, String token, long expires,
      String type) {
    ObjectNode r = Frames.object();
    r.put("id", Frames.text(user, "_id"));
    r.put("token", token);
    r.set("tokenExpires", Frames.date(expires));
    r.put("type", type);
    return r;
  }

  private void becomeUser(Session s, ObjectNode user, String tokenKey) {
    ObjectNode before = s.user;
    if (before != null && !before.equals(user)) {
      subscriptions.dropSubscriptions(s);
    }
    s.user = user;
    s.tokenKey = tokenKey;
  }

  /** The {@code logout} method: forgets the user and its token, ends its subscriptions. */
  void logout(Session s) throws MethodError {
    String key = s.tokenKey;
    s.resumable = false; // a session ended by logout is not resumed
    s.user = null;
    s.tokenKey = null;
    subscriptions.dropSubscriptions(s);
    if (key != null) {
      await(store.removeToken(key));
    }
  }

  /** The rate and login limiters' key of one connection. */
  static String connKey(Session s) {
    return "c:" + s.seq;
  }

  /** The remote IP address (no port), so fresh connections from one host share a key. */
  private static String addressKey(Session s) {
    InetSocketAddress remote = s.conn.getRemoteSocketAddress();
    InetAddress ip = remote == null ? null : remote.getAddress();
    return ip == null ? "a:unknown" : "a:" + ip.getHostAddress();
  }

  /** Forgets the failed logins of a closed connection (its key is never used again). */
  void closed(Session s) {
    limiter.forget(connKey(s));
  }

  /** Waits for a store write on a socket thread; writes are group-committed within ms. */
  private static <T> T await(CompletableFuture<T> f) throws MethodError {
    try {
      return f.get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MethodError(503, "Server is stopping");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof MethodError) {
        throw (MethodError) e.getCause();
      }
      log.warn("store write failed", e.getCause());
      throw new MethodError(500, "Internal server error");
    } catch (TimeoutException e) {
      throw new MethodError(503, "Storage is too slow, try again");
    }
  }
}
