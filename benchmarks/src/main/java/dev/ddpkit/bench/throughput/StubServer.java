package dev.ddpkit.bench.throughput;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.ddp.transport.Transport;
import dev.ddpkit.ddp.transport.TransportFactory;
import dev.ddpkit.ddp.transport.TransportListener;
import java.net.URI;

/**
 * An in-memory DDP server for one client, with no sockets: a {@link TransportFactory} whose
 * transport answers {@code connect} with {@code connected}, every {@code sub} with {@code ready},
 * {@code login} with a token and every other {@code method} with an empty {@code result}, each
 * followed by {@code updated}; {@link #push} hands a
 * server frame to the client as a socket would. Only the set-up is answered: the benchmark pushes
 * pre-built frames.
 */
public final class StubServer implements TransportFactory {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private volatile TransportListener client;
  private volatile boolean closed;

  @Override
  public Transport open(URI uri, TransportListener listener) {
    if (closed) {
      throw new IllegalStateException("stub server closed");
    }
    client = listener;
    listener.onOpen(); // the client hops it onto its loop: it runs after open() returns
    return new Transport() {
      @Override
      public void send(String text) {
        answer(listener, text);
      }

      @Override
      public void close(int code, String reason) {
        closed = true;
      }
    };
  }

  /** Hands one server frame to the client (on the caller's thread; the client hops it). */
  public void push(String frame) {
    TransportListener l = client;
    if (l == null) {
      throw new IllegalStateException("no client connected");
    }
    l.onMessage(frame);
  }

  /**
   * Hands one server frame to the client as its UTF-8 bytes, as the WebSocket transport does
   * (the array is the client's from then on).
   */
  public void pushUtf8(byte[] utf8) {
    TransportListener l = client;
    if (l == null) {
      throw new IllegalStateException("no client connected");
    }
    l.onText(utf8, 0, utf8.length);
  }

  private static void answer(TransportListener listener, String text) {
    JsonNode m;
    try {
      m = MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("the client sent a frame that is not JSON", e);
    }
    String msg = m.path("msg").asText();
    switch (msg) {
      case "connect" -> listener.onMessage(write(frame("connected").put("session", "stub")));
      case "sub" -> {
        ObjectNode ready = frame("ready");
        ready.putArray("subs").add(m.path("id").asText());
        listener.onMessage(write(ready));
      }
      case "method" -> {
        String id = m.path("id").asText();
        ObjectNode result = frame("result").put("id", id);
        if (m.path("method").asText().equals("login")) {
          result.putObject("result").put("id", "stub-user").put("token", "stub-token");
        }
        listener.onMessage(write(result));
        ObjectNode updated = frame("updated");
        updated.putArray("methods").add(id);
        listener.onMessage(write(updated));
      }
      default -> {
        // ping, pong, unsub: nothing to answer for the benchmark
      }
    }
  }

  private static ObjectNode frame(String msg) {
    ObjectNode o = MAPPER.createObjectNode();
    o.put("msg", msg);
    return o;
  }

  private static String write(ObjectNode o) {
    try {
      return MAPPER.writeValueAsString(o);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
