package dev.ddpkit.ddp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ddpkit.ddp.protocol.DdpMessage;

/**
 * DDP session resumption (Meteor 3.5): the last session id and how many frames of it were
 * received, offered in the next {@code connect} after an unexpected drop. The server resumes only
 * if it still holds that session and wrote exactly that many frames, then answers with the same
 * session id; any other answer is a new session and the client recovers as it always did. Event
 * loop only.
 *
 * <p>The count covers every frame with a {@code msg} string but {@code ping} and {@code pong},
 * as the server counts what it writes: also an unknown or malformed one. A frame without one
 * ({@code server_id}, a method error without {@code msg}) or that is not a JSON object is not
 * counted. A count that disagrees with the server's costs a new session, never a wrong resume.
 */
final class SessionResumption {
  private final boolean enabled;
  private final ObjectMapper mapper;
  private String session;
  private long received;
  /** Whether the server may still hold {@link #session} for us: false after a protocol drop. */
  private boolean resumable;

  SessionResumption(boolean enabled, ObjectMapper mapper) {
    this.enabled = enabled;
    this.mapper = mapper;
  }

  /** Whether this client offers to resume at all (the builder's {@code sessionResumption}). */
  boolean enabled() {
    return enabled;
  }

  /** The frame {@code text}, read as {@code m}, came on the current socket: counted if it counts. */
  void received(DdpMessage m, String text) {
    if (m instanceof DdpMessage.Invalid ? hasMsg(() -> mapper.readTree(text)) : counts(m)) {
      received++;
    }
  }

  /** The frame of these UTF-8 bytes, read as {@code m}, came: counted if it counts. */
  void received(DdpMessage m, byte[] utf8, int offset, int length) {
    if (m instanceof DdpMessage.Invalid
        ? hasMsg(() -> mapper.readTree(utf8, offset, length))
        : counts(m)) {
      received++;
    }
  }

  /** Reads a frame's tree; may throw. */
  private interface TreeReader {
    JsonNode read() throws java.io.IOException;
  }

  private static boolean counts(DdpMessage m) {
    if (m instanceof DdpMessage.Ping || m instanceof DdpMessage.Pong
        || m instanceof DdpMessage.ServerId) {
      return false;
    }
    // The one deviation without a 'msg' is a method error read as its result.
    return !(m instanceof DdpMessage.Deviation d && d.meaning() instanceof DdpMessage.Result);
  }

  /** A frame that is not DDP (rare: read again here rather than slow every frame down). */
  private static boolean hasMsg(TreeReader frame) {
    try {
      JsonNode tree = frame.read();
      JsonNode msg = tree == null ? null : tree.path("msg");
      if (msg == null) {
        return false;
      }
      return msg.isTextual() && !msg.textValue().isEmpty() && !msg.textValue().equals("ping")
          && !msg.textValue().equals("pong");
    } catch (java.io.IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * The session to name in {@code connect}, or {@code null} before the first. Named as DDP always
   * had it; only with {@link #offeredCount()} can it be resumed.
   */
  String offeredSession() {
    return session;
  }

  /** The count to send with {@link #offeredSession()}, or {@code null} not to ask for a resume. */
  Long offeredCount() {
    return enabled && resumable && session != null ? received : null;
  }

  /**
   * DDP {@code connected} (already counted): returns whether it resumed the offered session. A new
   * session restarts the count at 1, this {@code connected}.
   */
  boolean connected(String newSession) {
    boolean resumed = enabled && resumable && newSession.equals(session);
    if (!resumed) {
      session = newSession;
      received = 1;
    }
    resumable = true;
    return resumed;
  }

  /** The connection ended in a way that leaves the server's state not matching ours: start anew. */
  void forget() {
    resumable = false;
  }

  /** The frames counted in the current session (for tests and stats). */
  long receivedCount() {
    return received;
  }
}
