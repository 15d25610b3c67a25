package dev.ddpkit.chat.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

/**
 * {@link ServerFaults} a test scripts as it goes: install one with {@link
 * ChatServerBuilder#faults}, then lose an acknowledgement, hold the catch-ups or cut every
 * connection when the test needs it.
 *
 * <pre>{@code
 * ScriptedFaults faults = new ScriptedFaults();
 * ChatServer server = ChatServer.builder().dataDir(dir).faults(faults).build();
 * server.start();
 * faults.loseNextAcknowledgement();   // the next sendMessage is stored, its answer lost
 * faults.dropAll();                   // every socket reset, as a network failure would
 * }</pre>
 */
public final class ScriptedFaults implements ServerFaults {
  private final AtomicBoolean loseNext = new AtomicBoolean();
  private volatile Predicate<JsonNode> loseWhere;
  private volatile CompletableFuture<Void> catchUpGate;
  private volatile Connections connections;

  /** Faults that do nothing until the test asks for one. */
  public ScriptedFaults() {}

  @Override
  public void attached(Connections connections) {
    this.connections = connections;
  }

  @Override
  public boolean loseAcknowledgement(JsonNode storedMessage) {
    Predicate<JsonNode> where = loseWhere;
    if (where != null && where.test(storedMessage)) {
      return true;
    }
    return loseNext.compareAndSet(true, false);
  }

  @Override
  public CompletableFuture<Void> catchUpGate() {
    return catchUpGate;
  }

  /** The answer of the next successful {@code sendMessage} is lost (its message is stored). */
  public void loseNextAcknowledgement() {
    loseNext.set(true);
  }

  /** Loses the answer of every successful {@code sendMessage} whose stored message matches. */
  public void loseAcknowledgementsWhere(Predicate<JsonNode> where) {
    loseWhere = Objects.requireNonNull(where, "where");
  }

  /** Sends every answer again (after {@link #loseAcknowledgementsWhere} or a pending lose). */
  public void stopLosingAcknowledgements() {
    loseWhere = null;
    loseNext.set(false);
  }

  /**
   * Every catch-up from now on waits for {@code gate} (see {@link ServerFaults#catchUpGate});
   * {@code null} answers at once again, and calls already held still wait for their gate.
   */
  public void holdCatchUps(CompletableFuture<Void> gate) {
    catchUpGate = gate;
  }

  /** Closes every open connection with this close frame. */
  public void closeAll(int code, String reason) {
    attachedConnections().closeAll(code, reason);
  }

  /** Drops every open connection at the TCP level, as a network failure would. */
  public void dropAll() {
    attachedConnections().dropAll();
  }

  private Connections attachedConnections() {
    Connections c = connections;
    if (c == null) {
      throw new IllegalStateException("the server these faults were given to is not listening");
    }
    return c;
  }
}
