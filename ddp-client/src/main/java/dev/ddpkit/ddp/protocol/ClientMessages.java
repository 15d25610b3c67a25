package dev.ddpkit.ddp.protocol;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;

/** Builds the frames a DDP client sends, with Jackson (never by concatenating strings). */
public final class ClientMessages {
  private final ObjectMapper mapper;

  /** Creates a builder on the given mapper. */
  public ClientMessages(ObjectMapper mapper) {
    this.mapper = Objects.requireNonNull(mapper, "mapper");
  }

  /** {@code connect} with the version, the versions supported and the last session, if any. */
  public String connect(String version, List<String> support, String session) {
    return connect(version, support, session, null);
  }

  /**
   * {@code connect} asking to resume {@code session}: with {@code receivedCount}, the frames of it
   * received other than ping and pong (Meteor 3.5's session resumption), unless it is {@code null}.
   */
  public String connect(String version, List<String> support, String session, Long receivedCount) {
    ObjectNode o = msg("connect");
    o.put("version", version);
    ArrayNode s = o.putArray("support");
    support.forEach(s::add);
    if (session != null) {
      o.put("session", session);
      if (receivedCount != null) {
        o.put("receivedCount", receivedCount.longValue());
      }
    }
    return write(o);
  }

  /** {@code disconnect}: this client is leaving on purpose, the server need not keep its session. */
  public String disconnect() {
    return write(msg("disconnect"));
  }

  /** {@code ping}, with an id unless it is {@code null}. */
  public String ping(String id) {
    ObjectNode o = msg("ping");
    if (id != null) {
      o.put("id", id);
    }
    return write(o);
  }

  /** {@code pong}, echoing the ping's id unless it is {@code null}. */
  public String pong(String id) {
    ObjectNode o = msg("pong");
    if (id != null) {
      o.put("id", id);
    }
    return write(o);
  }

  /** {@code sub}. */
  public String sub(String id, String name, ArrayNode params) {
    ObjectNode o = msg("sub");
    o.put("id", id);
    o.put("name", name);
    o.set("params", params);
    return write(o);
  }

  /** {@code unsub}. */
  public String unsub(String id) {
    ObjectNode o = msg("unsub");
    o.put("id", id);
    return write(o);
  }

  /** {@code method}, with the random seed unless it is {@code null}. */
  public String method(String id, String method, ArrayNode params, String randomSeed) {
    ObjectNode o = msg("method");
    o.put("method", method);
    o.set("params", params);
    o.put("id", id);
    if (randomSeed != null) {
      o.put("randomSeed", randomSeed);
    }
    return write(o);
  }

  private ObjectNode msg(String type) {
    ObjectNode o = mapper.createObjectNode();
    o.put("msg", type);
    return o;
  }

  private String write(ObjectNode o) {
    try {
      return mapper.writeValueAsString(o);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
