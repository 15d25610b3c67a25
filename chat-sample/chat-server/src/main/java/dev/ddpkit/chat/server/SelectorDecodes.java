package dev.ddpkit.chat.server;

import java.nio.ByteBuffer;
import org.java_websocket.enums.ReadyState;

/**
 * Which reads the selector thread decodes itself instead of handing them to the connection's
 * worker ({@link Endpoint#queue}): those of a connection's first few that cannot run a method or
 * a subscription. In a wave of resumed reconnects each hand-off (the read queued, a worker
 * unparked, then parked again) cost about as much as the work it handed off, and a resumed
 * reconnect sends the server nothing else than its upgrade and its {@code connect}.
 *
 * <p>A read qualifies when
 *
 * <ul>
 *   <li>it is one of the connection's first {@link #MAX_READS}, and none before it went to the
 *       worker (so the worker holds none of its bytes and the order of reads is kept);
 *   <li>and it is either the whole upgrade request and nothing after it, or, once upgraded and
 *       before DDP's {@code connect} has been answered (a connection the admission never held),
 *       exactly one complete frame of at most {@link #MAX_FRAME_BYTES}: the {@code connect}, a
 *       ping, or a frame the handler refuses because the connection has not connected.
 * </ul>
 *
 * <p>Anything pipelined behind the upgrade or the {@code connect} in the same read, a frame split
 * over reads, a larger one, and every read after the first that did not qualify, goes to the
 * worker; so does the end of the stream or a reset (its mark is no frame). So no method or
 * subscription runs on the selector, and a peer can make it decode at most {@link #MAX_READS}
 * small reads.
 */
final class SelectorDecodes {
  /** Reads of one connection the selector may decode: the upgrade, the connect, one spare. */
  static final int MAX_READS = 3;
  /** The largest frame payload the selector decodes; a {@code connect} is about 100 bytes. */
  static final int MAX_FRAME_BYTES = 4096;

  private static final byte[] END_OF_HEAD = {'\r', '\n', '\r', '\n'};

  private SelectorDecodes() {}

  /** Whether the selector decodes {@code read}, the bytes just read from {@code c}. */
  static boolean decodeOnSelector(ServerConnection c, ByteBuffer read) {
    if (read == null || !c.selectorMayDecode(MAX_READS)) {
      return false;
    }
    if (c.getReadyState() == ReadyState.NOT_YET_CONNECTED) {
      return isWholeHead(read);
    }
    return c.isOpen() && c.getAttachment() instanceof Session s && s.hold == null
        && !s.connected && isOneSmallFrame(read);
  }

  /** Whether {@code read} ends with the first blank line in it: an HTTP head and nothing after. */
  static boolean isWholeHead(ByteBuffer read) {
    int start = read.position();
    int end = read.limit();
    for (int i = start; i + END_OF_HEAD.length <= end; i++) {
      if (read.get(i) == '\r' && read.get(i + 1) == '\n' && read.get(i + 2) == '\r'
          && read.get(i + 3) == '\n') {
        return i + END_OF_HEAD.length == end;
      }
    }
    return false;
  }

  /**
   * Whether {@code read} is exactly one complete, final WebSocket frame (RFC 6455 section 5.2) with
   * a payload of at most {@link #MAX_FRAME_BYTES}. Reads nothing past the buffer's limit and
   * moves no position.
   */
  static boolean isOneSmallFrame(ByteBuffer read) {
    int at = read.position();
    int n = read.remaining();
    if (n < 2 || (read.get(at) & 0x80) == 0) { // too short, or not final
      return false;
    }
    int second = read.get(at + 1) & 0xFF;
    int length = second & 0x7F;
    int header = 2;
    if (length == 126) {
      if (n < 4) {
        return false;
      }
      length = read.getShort(at + 2) & 0xFFFF;
      header = 4;
    } else if (length == 127) {
      return false; // 64 KiB or more
    }
    if ((second & 0x80) != 0) {
      header += 4; // the mask key
    }
    return length <= MAX_FRAME_BYTES && header + length == n;
  }
}
