package dev.ddpkit.chat.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.chat.protocol.RocketChatNames;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * DDP method calls of every connection, their frames' shape already checked by {@link
 * DdpHandler}: repeated ids, the rate limit, dispatch to {@link Logins} and {@link ChatMethods},
 * and the {@code result} and {@code updated} answers, losing an answer or holding a catch-up when
 * the installed {@link ServerFaults} say so. A call starts on the connection's socket worker thread; its answer is sent on
 * that thread, or later on the store's writer thread ({@code sendMessage}, once durable) or on the
 * thread that opens a fault's catch-up gate.
 */
final class MethodCalls {
  private static final Logger log = LoggerFactory.getLogger(MethodCalls.class);

  private final Logins logins;
  private final ChatMethods chat;
  private final MessageEdits edits;
  private final MessagesGet messagesGet;
  private final Compatibility compatibility;
  private final DdpRateLimiter rateLimiter;
  private final Counters counters;
  private final ServerFaults faults;

  MethodCalls(Logins logins, ChatMethods chat, MessageEdits edits, MessagesGet messagesGet,
      Compatibility compatibility, DdpRateLimiter rateLimiter, Counters counters,
      ServerFaults faults) {
    this.faults = faults;
    this.logins = logins;
    this.chat = chat;
    this.edits = edits;
    this.messagesGet = messagesGet;
    this.compatibility = compatibility;
    this.rateLimiter = rateLimiter;
    this.counters = counters;
  }

  /** A well-formed {@code method} frame: {@code params} is an array or null. */
  void call(Session s, String id, String name, JsonNode params) {
    switch (s.methods.begin(id)) {
      case RUNNING:
        log.debug("{}: method id {} repeated while running; ignored", s, id);
        return;
      case DONE:
        s.methods.resultOf(id).forEach(f -> DdpHandler.send(s, f));
        return;
      case FORGOTTEN:
        answer(s, id, name, null, new MethodError(400, "Method id " + id + " was already used"));
        return;
      case NEW:
        break;
      default:
        throw new AssertionError("Unexpected state");
    }
    ArrayNode p = params == null ? JsonNodeFactory.instance.arrayNode() : (ArrayNode) params;
    ObjectNode user = s.user;
    String userId = user == null ? null : Frames.text(user, "_id");
    long wait = rateLimiter.method(name, Logins.connKey(s), userId);
    if (wait > 0) {
      counters.rateLimited.incrementAndGet();
      answer(s, id, name, null, MethodError.tooManyRequests(wait));
      return;
    }
    CompletableFuture<JsonNode> f;
    try {
      f = invoke(s, name, p);
    } catch (MethodError | RuntimeException e) {
      f = CompletableFuture.failedFuture(e); // a RuntimeException is answered as a 500
    }
    f.whenComplete((r, err) -> answer(s, id, name, r, err));
  }

  private CompletableFuture<JsonNode> invoke(Session s, String name, ArrayNode p)
      throws MethodError {
    if (name.equals(RocketChatNames.LOGIN)) {
      return CompletableFuture.completedFuture(logins.login(s, p));
    }
    if (!compatibility.has(name)) {
      throw new MethodError(404, "Method '" + DdpHandler.clip(name) + "' not found");
    }
    if (s.user == null) {
      throw MethodError.notAllowed("Not allowed: log in first");
    }
    switch (name) {
      case RocketChatNames.LOGOUT:
        logins.logout(s);
        return CompletableFuture.completedFuture(null);
      case RocketChatNames.SEND_MESSAGE:
        return chat.sendMessage(s, p);
      case RocketChatNames.LOAD_HISTORY:
        return CompletableFuture.completedFuture(chat.loadHistory(s, p));
      case RocketChatNames.ROOMS_GET:
        return CompletableFuture.completedFuture(chat.roomsGet(s, p));
      case RocketChatNames.LOAD_MISSED_MESSAGES:
        return whenReleased(s, name, () -> chat.loadMissed(s, p));
      case RocketChatNames.UPDATE_MESSAGE:
        return edits.updateMessage(s, p);
      case RocketChatNames.DELETE_MESSAGE:
        return edits.deleteMessage(s, p);
      case MessagesGet.METHOD:
        if (MessagesGet.isCatchUp(p)) {
          return whenReleased(s, name, () -> messagesGet.call(s, p));
        }
        return CompletableFuture.completedFuture(messagesGet.call(s, p));
      default:
        throw new MethodError(404, "Method '" + DdpHandler.clip(name) + "' not found");
    }
  }

  private void answer(Session s, String id, String name, JsonNode result, Throwable err) {
    ObjectNode res = Frames.frame("result");
    res.put("id", id);
    if (err != null) {
      res.set("error", toMethodError(s, name, err).toJson());
    } else if (result != null) {
      res.set("result", result);
    }
    ObjectNode updated = Frames.frame("updated");
    updated.putArray("methods").add(id);
    s.methods.finish(id, List.of(res, updated));
    if (err == null && name.equals(RocketChatNames.SEND_MESSAGE) && loseThisAck(result)) {
      counters.acknowledgementsLost.incrementAndGet();
      log.info("{}: dropping the answer to method {} (test hook)", s, id);
      return;
    }
    DdpHandler.send(s, res);
    DdpHandler.send(s, updated);
  }

  private MethodError toMethodError(Session s, String name, Throwable err) {
    Throwable c = err;
    while ((c instanceof CompletionException || c instanceof ExecutionException)
        && c.getCause() != null) {
      c = c.getCause();
    }
    if (c instanceof MethodError) {
      return (MethodError) c;
    }
    log.warn("{}: method {} failed", s, DdpHandler.clip(name), c);
    return new MethodError(500, "Internal server error");
  }

  private boolean loseThisAck(JsonNode storedMessage) {
    if (storedMessage == null) {
      return false;
    }
    try {
      return faults.loseAcknowledgement(storedMessage);
    } catch (RuntimeException e) {
      log.warn("the installed faults threw; the answer is sent", e);
      return false;
    }
  }

  /** A read that may refuse with a {@link MethodError}. */
  private interface Read {
    JsonNode get() throws MethodError;
  }

  /**
   * A catch-up ({@code loadMissedMessages}, or {@code messages/get} since a time or a cursor),
   * answered once the test hook's gate opens (at once if none): read then, on the thread that
   * opened it; refused with {@code error-test-hook} if the gate failed.
   */
  private CompletableFuture<JsonNode> whenReleased(Session s, String name, Read read)
      throws MethodError {
    CompletableFuture<Void> gate = faults.catchUpGate();
    if (gate == null) {
      return CompletableFuture.completedFuture(read.get());
    }
    log.info("{}: holding a {} answer (test hook)", s, name);
    return gate.handle((v, e) -> {
      try {
        if (e != null) {
          throw new MethodError("error-test-hook", "catch-up refused by the test hook");
        }
        return read.get();
      } catch (MethodError m) {
        throw new CompletionException(m);
      }
    });
  }
}
