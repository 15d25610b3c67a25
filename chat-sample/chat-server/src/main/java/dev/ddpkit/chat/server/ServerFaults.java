package dev.ddpkit.chat.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.concurrent.CompletableFuture;

/**
 * The faults a test injects into a {@link ChatServer}: installed with {@link
 * ChatServerBuilder#faults}, asked by the server at the few points where a fault can happen, and
 * handed, once the server listens, the {@link Connections} a fault may cut. The default, {@link
 * #NONE}, injects nothing. {@link ScriptedFaults} is a ready one a test scripts step by step.
 *
 * <p>The server calls these from its socket and store threads: an implementation is thread-safe
 * and quick, and does not call back into the server from them.
 */
public interface ServerFaults {
  /** No fault: every answer is sent, every catch-up answered at once. */
  ServerFaults NONE = new ServerFaults() {};

  /** Called once, when the server listens: what a fault may do to its open connections. */
  default void attached(Connections connections) {}

  /**
   * Whether the answer of a successful {@code sendMessage} is lost: the message is stored and
   * broadcast as usual, but its {@code result} and {@code updated} frames are not sent.
   *
   * @param storedMessage the message as stored
   */
  default boolean loseAcknowledgement(JsonNode storedMessage) {
    return false;
  }

  /**
   * What a catch-up call ({@code loadMissedMessages}, {@code messages/get} since a time or a
   * cursor) waits for before it is answered, with what is stored then; {@code null} answers at
   * once. If it fails, the call is refused with the error {@code error-test-hook}.
   */
  default CompletableFuture<Void> catchUpGate() {
    return null;
  }

  /** The server's open connections, as a fault may cut them; the server keeps running. */
  interface Connections {
    /** Closes every open connection with a close frame carrying {@code code} and {@code reason}. */
    void closeAll(int code, String reason);

    /** Drops every open connection at the TCP level (a reset, no close frame). */
    void dropAll();
  }
}
