package dev.ddpkit.ddp.protocol;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Parses server frames into {@link DdpMessage}s, checking the type of every field it reads. Unknown
 * fields are ignored; an unknown {@code msg} becomes {@link DdpMessage.Unknown}. {@link #parse}
 * is strict and throws on a frame that is not DDP; {@link #read} is tolerant: it reads the
 * well-known deviations of real servers as what they mean and returns a value for any other bad
 * frame. Thread-safe.
 *
 * <p>A data message ({@code added}, {@code changed}, {@code removed}, {@code addedBefore}, {@code
 * movedBefore}), the bulk of what a server sends, is read as a token stream by a {@link
 * DataMessageReader}, only its {@code fields} built as a tree (the listeners' part). Any other
 * frame, and any data message that is not plainly well formed, is read as a whole tree instead,
 * so every answer and every problem reported is the tree's. A mapper whose configuration changes
 * how trees are read (repeated names refused, integers widened, null properties dropped) always
 * gets the tree.
 */
public final class DdpMessages {
  private final ObjectReader reader;
  /** The token-stream reader of data messages; null when every frame is read as a tree. */
  private final DataMessageReader dataMessages;

  /** Creates a parser on a default {@link ObjectMapper}. */
  public DdpMessages() {
    this(new ObjectMapper());
  }

  /** Creates a parser on the given mapper (its configuration is not changed). */
  public DdpMessages(ObjectMapper mapper) {
    this(mapper, /* mayStream= */ true);
  }

  /**
   * A parser that reads every frame as a whole tree, as this class did before it streamed data
   * messages: the reference the tests hold the streamed reading to.
   */
  static DdpMessages treeOnly(ObjectMapper mapper) {
    return new DdpMessages(mapper, /* mayStream= */ false);
  }

  private DdpMessages(ObjectMapper mapper, boolean mayStream) {
    this.reader =
        Objects.requireNonNull(mapper, "mapper")
            .reader()
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    this.dataMessages = mayStream ? DataMessageReader.forReader(reader) : null;
  }

  /**
   * Parses one frame strictly: anything that is not DDP as the spec writes it is an exception.
   *
   * <p>A {@code result}, {@code nosub}, {@code ready} or {@code updated} whose ids can be read but
   * which has another field of the wrong type is not an exception but a {@link
   * DdpMessage.Malformed}, so that the client fails only its targets.
   *
   * @throws DdpProtocolException if the frame is not JSON, not an object, has no {@code msg} (and
   *     is not the {@code server_id} greeting) or has a field of the wrong type
   */
  public DdpMessage parse(String frame) throws DdpProtocolException {
    DdpMessage streamed = streamed(frame);
    return streamed != null ? streamed : decode(tree(frame), /* tolerant= */ false);
  }

  /**
   * Reads one frame tolerantly, as real servers write DDP; never throws. Where {@link #parse}
   * returns a message, this returns the same one. Where it throws, this returns:
   *
   * <ul>
   *   <li>a {@link DdpMessage.Deviation} for a well-known deviation whose meaning is not in doubt:
   *       an {@code updated} naming one call in {@code id} instead of a {@code methods} list, and
   *       a frame without {@code msg} that carries a method's {@code id} and an {@code error}
   *       (an object, or a string naming the error): the result of that call, failed;
   *   <li>a {@link DdpMessage.Invalid} for any other frame, naming what is wrong (never quoting
   *       the frame, which may carry a token).
   * </ul>
   */
  public DdpMessage read(String frame) {
    try {
      DdpMessage streamed = streamed(frame);
      return streamed != null ? streamed : decode(tree(frame), /* tolerant= */ true);
    } catch (DdpProtocolException e) {
      return new DdpMessage.Invalid(e.getMessage());
    }
  }

  /**
   * Parses one frame given as UTF-8 bytes, {@code utf8[offset, offset + length)}, strictly: as
   * {@link #parse(String)} of the text those bytes encode, without making the string.
   *
   * @throws DdpProtocolException as {@link #parse(String)}
   */
  public DdpMessage parse(byte[] utf8, int offset, int length) throws DdpProtocolException {
    DdpMessage streamed = streamed(utf8, offset, length);
    return streamed != null ? streamed : decode(tree(utf8, offset, length), /* tolerant= */ false);
  }

  /**
   * Reads one frame given as UTF-8 bytes tolerantly: as {@link #read(String)} of the text those
   * bytes encode, without making the string. Never throws.
   */
  public DdpMessage read(byte[] utf8, int offset, int length) {
    try {
      DdpMessage streamed = streamed(utf8, offset, length);
      return streamed != null
          ? streamed
          : decode(tree(utf8, offset, length), /* tolerant= */ true);
    } catch (DdpProtocolException e) {
      return new DdpMessage.Invalid(e.getMessage());
    }
  }

  /**
   * The frame read as a token stream, or {@code null} if the tree must decide (see the class
   * comment). Package-private for the tests, which check that data messages are streamed.
   */
  DdpMessage streamed(String frame) {
    return dataMessages == null || frame == null ? null : dataMessages.read(frame);
  }

  /** As {@link #streamed(String)}, from UTF-8 bytes. */
  private DdpMessage streamed(byte[] utf8, int offset, int length) throws DdpProtocolException {
    checkBytes(utf8, offset, length);
    return dataMessages == null ? null : dataMessages.read(utf8, offset, length);
  }


  private ObjectNode tree(String frame) throws DdpProtocolException {
    if (frame == null) {
      throw new DdpProtocolException("null frame");
    }
    try {
      return object(reader.readTree(frame));
    } catch (JsonProcessingException e) {
      throw invalidJson(e);
    }
  }

  private static void checkBytes(byte[] utf8, int offset, int length)
      throws DdpProtocolException {
    Objects.checkFromIndexSize(offset, length, Objects.requireNonNull(utf8, "utf8").length);
    if (length >= 3 && utf8[offset] == (byte) 0xEF && utf8[offset + 1] == (byte) 0xBB
        && utf8[offset + 2] == (byte) 0xBF) {
      // Jackson skips a byte order mark in bytes, and rejects it in text: read both as text.
      throw new DdpProtocolException("invalid JSON at line 1, column 1");
    }
  }

  private ObjectNode tree(byte[] utf8, int offset, int length) throws DdpProtocolException {
    checkBytes(utf8, offset, length);
    try {
      return object(reader.readTree(utf8, offset, length));
    } catch (JsonProcessingException e) {
      throw invalidJson(e);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // not thrown by a parser reading an array
    }
  }

  /** The exception's own message may quote the frame, which may carry a token: say where only. */
  private static DdpProtocolException invalidJson(JsonProcessingException e) {
    JsonLocation at = e.getLocation();
    String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
    return new DdpProtocolException("invalid JSON" + where);
  }

  private static ObjectNode object(JsonNode node) throws DdpProtocolException {
    if (node == null || !node.isObject()) {
      throw new DdpProtocolException(
          "frame is not a JSON object but " + (node == null ? "empty" : describe(node)));
    }
    return (ObjectNode) node;
  }

  private DdpMessage decode(ObjectNode o, boolean tolerant) throws DdpProtocolException {
    JsonNode msgNode = o.get("msg");
    if (msgNode == null) {
      if (o.has("server_id")) {
        return new DdpMessage.ServerId(optText(o, "server_id", "server_id"));
      }
      if (tolerant && isMethodError(o)) {
        return methodErrorWithoutMsg(o);
      }
      throw new DdpProtocolException("frame has no 'msg' field");
    }
    if (!msgNode.isTextual()) {
      throw new DdpProtocolException("field 'msg' must be a string, got " + describe(msgNode));
    }
    String msg = msgNode.textValue();
    if (tolerant) {
      if (msg.equals("updated") && !o.has("methods") && o.path("id").isTextual()) {
        return new DdpMessage.Deviation(
            new DdpMessage.Updated(List.of(o.get("id").textValue())),
            "'updated' with 'id' instead of 'methods'");
      }
    }
    return switch (msg) {
      case "connected" -> new DdpMessage.Connected(text(o, msg, "session"));
      case "failed" -> new DdpMessage.Failed(text(o, msg, "version"));
      case "ping" -> new DdpMessage.Ping(optText(o, msg, "id"));
      case "pong" -> new DdpMessage.Pong(optText(o, msg, "id"));
      case "nosub" -> noSub(o);
      case "ready" -> idList(o, msg, "subs", DdpMessage.Ready::new);
      case "added" ->
          new DdpMessage.Added(text(o, msg, "collection"), text(o, msg, "id"), fields(o, msg));
      case "changed" ->
          new DdpMessage.Changed(
              text(o, msg, "collection"),
              text(o, msg, "id"),
              fields(o, msg),
              textList(o, msg, "cleared", false));
      case "removed" -> new DdpMessage.Removed(text(o, msg, "collection"), text(o, msg, "id"));
      case "addedBefore" ->
          new DdpMessage.AddedBefore(
              text(o, msg, "collection"), text(o, msg, "id"), fields(o, msg), optText(o, msg, "before"));
      case "movedBefore" ->
          new DdpMessage.MovedBefore(
              text(o, msg, "collection"), text(o, msg, "id"), optText(o, msg, "before"));
      case "result" -> result(o);
      case "updated" -> idList(o, msg, "methods", DdpMessage.Updated::new);
      case "error" -> new DdpMessage.ServerError(nullToEmpty(optText(o, msg, "reason")));
      default -> new DdpMessage.Unknown(msg);
    };
  }

  /** A string {@code id} and an {@code error} object or string: how some servers fail a call. */
  private static boolean isMethodError(ObjectNode o) {
    JsonNode e = o.get("error");
    return o.path("id").isTextual() && e != null && (e.isObject() || e.isTextual());
  }

  private static DdpMessage methodErrorWithoutMsg(ObjectNode o)
      throws DdpProtocolException {
    String id = o.get("id").textValue();
    JsonNode e = o.get("error");
    DdpError error =
        e.isTextual() ? new DdpError(e.textValue(), "", null) : optError(o, "result");
    return new DdpMessage.Deviation(
        new DdpMessage.Result(id, NullNode.getInstance(), error), "a method error without 'msg'");
  }

  // A reply whose id is readable is never a reason to drop the connection: the server would send
  // it again after the reconnect, forever. Its malformed field fails only its target.

  private static DdpMessage result(ObjectNode o) throws DdpProtocolException {
    String id = text(o, "result", "id");
    DdpError error;
    try {
      error = optError(o, "result");
    } catch (DdpProtocolException e) {
      return new DdpMessage.Malformed("result", List.of(id), e.getMessage());
    }
    JsonNode result = o.get("result");
    if (error != null || result == null) {
      result = NullNode.getInstance();
    }
    return new DdpMessage.Result(id, result, error);
  }

  private static DdpMessage noSub(ObjectNode o) throws DdpProtocolException {
    String id = text(o, "nosub", "id");
    try {
      return new DdpMessage.NoSub(id, optError(o, "nosub"));
    } catch (DdpProtocolException e) {
      return new DdpMessage.Malformed("nosub", List.of(id), e.getMessage());
    }
  }

  /** A required list of ids; an array with items other than strings keeps the readable ones. */
  private static DdpMessage idList(
      ObjectNode o, String msg, String field, Function<List<String>, DdpMessage> make)
      throws DdpProtocolException {
    try {
      return make.apply(textList(o, msg, field, true));
    } catch (DdpProtocolException e) {
      JsonNode v = o.get(field);
      if (v == null || !v.isArray()) {
        throw e; // no id can be read: nothing to target
      }
      List<String> readable = new ArrayList<>(v.size());
      v.forEach(item -> {
        if (item.isTextual()) {
          readable.add(item.textValue());
        }
      });
      return new DdpMessage.Malformed(msg, readable, e.getMessage());
    }
  }

  private static DdpError optError(ObjectNode o, String msg) throws DdpProtocolException {
    JsonNode e = o.get("error");
    if (e == null || e.isNull()) {
      return null;
    }
    if (!e.isObject()) {
      throw wrongType(msg, "error", "an object", e);
    }
    JsonNode code = e.get("error");
    String error;
    if (code == null || code.isNull()) {
      // Meteor always sets it; a plain Error from another server may not.
      String type = optText((ObjectNode) e, msg, "errorType", "error.errorType");
      error = type != null ? type : "unknown-error";
    } else if (code.isTextual()) {
      error = code.textValue();
    } else if (code.isIntegralNumber()) {
      error = code.asText();
    } else {
      throw wrongType(msg, "error.error", "a string or an integer", code);
    }
    String reason = optText((ObjectNode) e, msg, "reason", "error.reason");
    return new DdpError(error, nullToEmpty(reason), e.get("details"));
  }

  private static ObjectNode fields(ObjectNode o, String msg) throws DdpProtocolException {
    JsonNode f = o.get("fields");
    if (f == null || f.isNull()) {
      return o.objectNode();
    }
    if (!f.isObject()) {
      throw wrongType(msg, "fields", "an object", f);
    }
    return (ObjectNode) f;
  }

  private static String text(ObjectNode o, String msg, String field) throws DdpProtocolException {
    JsonNode v = o.get(field);
    if (v == null) {
      throw new DdpProtocolException("'" + msg + "' has no '" + field + "' field");
    }
    if (!v.isTextual()) {
      throw wrongType(msg, field, "a string", v);
    }
    return v.textValue();
  }

  private static String optText(ObjectNode o, String msg, String field)
      throws DdpProtocolException {
    return optText(o, msg, field, field);
  }

  /** {@code path} names the field in an error message ("error.reason" for a nested one). */
  private static String optText(ObjectNode o, String msg, String field, String path)
      throws DdpProtocolException {
    JsonNode v = o.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isTextual()) {
      throw wrongType(msg, path, "a string", v);
    }
    return v.textValue();
  }

  private static List<String> textList(ObjectNode o, String msg, String field, boolean required)
      throws DdpProtocolException {
    JsonNode v = o.get(field);
    if (v == null || (!required && v.isNull())) {
      if (required) {
        throw new DdpProtocolException("'" + msg + "' has no '" + field + "' field");
      }
      return List.of();
    }
    if (!v.isArray()) {
      throw wrongType(msg, field, "an array of strings", v);
    }
    List<String> out = new ArrayList<>(v.size());
    for (JsonNode item : v) {
      if (!item.isTextual()) {
        throw wrongType(msg, field + "[]", "a string", item);
      }
      out.add(item.textValue());
    }
    return out;
  }

  private static DdpProtocolException wrongType(
      String msg, String field, String expected, JsonNode got) {
    return new DdpProtocolException(
        "field '" + field + "' of '" + msg + "' must be " + expected + ", got " + describe(got));
  }

  private static String describe(JsonNode n) {
    JsonNodeType t = n.getNodeType();
    return t == null ? "nothing" : t.name().toLowerCase(java.util.Locale.ROOT);
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
