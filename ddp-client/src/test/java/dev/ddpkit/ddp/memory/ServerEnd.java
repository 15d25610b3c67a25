package dev.ddpkit.ddp.memory;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ddpkit.ddp.transport.Transport;
import dev.ddpkit.ddp.transport.TransportListener;
import java.net.URI;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The server side of one in-memory connection: what the client sent, and methods to open, send
 * frames to the client and close. JSON in test strings may use single quotes: {@link #json}
 * turns them into double quotes.
 */
public final class ServerEnd {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final URI uri;
  private final TransportListener listener;
  private final ArrayDeque<String> received = new ArrayDeque<>();
  private boolean closedByClient;
  private int clientCloseCode;
  private String clientCloseReason;
  private int sentCount;

  ServerEnd(URI uri, TransportListener listener) {
    this.uri = uri;
    this.listener = listener;
  }

  /** Returns the URI the client dialed. */
  public URI uri() {
    return uri;
  }

  Transport transport() {
    return new Transport() {
      @Override
      public void send(String text) {
        synchronized (ServerEnd.this) {
          if (!closedByClient) {
            received.add(text);
          }
        }
      }

      @Override
      public void close(int code, String reason) {
        synchronized (ServerEnd.this) {
          if (!closedByClient) {
            closedByClient = true;
            clientCloseCode = code;
            clientCloseReason = reason;
          }
        }
      }
    };
  }

  /** The socket opened. */
  public ServerEnd open() {
    listener.onOpen();
    return this;
  }

  /**
   * Sends a frame to the client, as is (for bad frames). Counted in {@link #sentCount()} if it is
   * a JSON object with a {@code msg} string other than {@code ping} and {@code pong}.
   */
  public ServerEnd sendRaw(String frame) {
    if (counted(frame)) {
      synchronized (this) {
        sentCount++;
      }
    }
    listener.onMessage(frame);
    return this;
  }

  private static boolean counted(String frame) {
    JsonNode msg;
    try {
      msg = MAPPER.readTree(frame).path("msg");
    } catch (JsonProcessingException | RuntimeException e) {
      return false;
    }
    return msg.isTextual() && !msg.textValue().isEmpty() && !msg.textValue().equals("ping")
        && !msg.textValue().equals("pong");
  }

  /**
   * Returns how many frames this end sent that a DDP server counts for session resumption
   * (Meteor 3.5): every one with a {@code msg} but {@code ping} and {@code pong}.
   */
  public synchronized int sentCount() {
    return sentCount;
  }

  /** Sends a frame to the client; single quotes become double quotes. */
  public ServerEnd send(String json) {
    return sendRaw(json(json).toString());
  }

  /** The server closes the connection. */
  public ServerEnd closeFromServer(int code, String reason) {
    listener.onClose(code, reason, true);
    return this;
  }

  /** The socket reports it closed after the client closed it (late, as a real socket would). */
  public ServerEnd lateClose(int code, String reason) {
    listener.onClose(code, reason, false);
    return this;
  }

  /** Returns and removes every frame the client sent so far, parsed. */
  public synchronized List<JsonNode> drain() {
    List<JsonNode> out = new ArrayList<>();
    while (!received.isEmpty()) {
      out.add(parse(received.poll()));
    }
    return out;
  }

  /** Asserts that the client sent exactly these frames since the last check, in this order. */
  public ServerEnd expect(String... frames) {
    List<JsonNode> want = new ArrayList<>();
    for (String f : frames) {
      want.add(json(f));
    }
    assertThat(drain()).as("frames sent by the client").containsExactlyElementsOf(want);
    return this;
  }

  /** Asserts that the client sent nothing since the last check. */
  public ServerEnd expectNothing() {
    assertThat(drain()).as("frames sent by the client").isEmpty();
    return this;
  }

  /** Returns whether the client closed this connection. */
  public synchronized boolean closedByClient() {
    return closedByClient;
  }

  /** Returns the close code the client used, 0 if it did not close. */
  public synchronized int clientCloseCode() {
    return clientCloseCode;
  }

  /** Returns the close reason the client used, {@code null} if it did not close. */
  public synchronized String clientCloseReason() {
    return clientCloseReason;
  }

  /** Parses test JSON written with single quotes. */
  public static JsonNode json(String singleQuoted) {
    return parse(singleQuoted.replace('\'', '"'));
  }

  private static JsonNode parse(String s) {
    try {
      return MAPPER.readTree(s);
    } catch (JsonProcessingException e) {
      throw new AssertionError("not JSON: " + s, e);
    }
  }
}
