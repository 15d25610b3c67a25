package dev.ddpkit.ddp.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.java_websocket.WebSocket;
import org.java_websocket.WebSocketAdapter;
import org.java_websocket.WebSocketImpl;
import org.java_websocket.drafts.Draft;
import org.java_websocket.exceptions.InvalidDataException;
import org.java_websocket.exceptions.LimitExceededException;
import org.java_websocket.framing.CloseFrame;
import org.java_websocket.framing.Framedata;
import org.java_websocket.handshake.Handshakedata;
import org.junit.jupiter.api.Test;

/**
 * {@link BoundedMessageDraft} on raw frame bytes, as the library feeds them: fragments are
 * assembled into one message, and a fragmented message that never ends is refused with 1009 at the
 * fragment that passes the limit, holding nothing afterwards (Java-WebSocket 1.6.0's own draft
 * buffers every continuation frame unchecked until the last one).
 */
class BoundedMessageDraftTest {
  private static final int TEXT = 1;
  private static final int BINARY = 2;
  private static final int CONTINUATION = 0;
  private static final int PING = 9;

  private final List<String> texts = new ArrayList<>();
  private final List<Integer> binaries = new ArrayList<>();
  private final WebSocketImpl socket = new WebSocketImpl(new Recorder(), new BoundedMessageDraft(1));

  @Test
  void fragmentsUnderTheLimitArriveAsOneMessageEvenWithACharacterSplitBetweenThem()
      throws Exception {
    BoundedMessageDraft draft = new BoundedMessageDraft(64);
    byte[] text = "caf\u00e9 ok".getBytes(StandardCharsets.UTF_8); // é is two bytes: 3 and 4
    feed(draft, frame(TEXT, false, slice(text, 0, 4))); // ends in the middle of é
    feed(draft, frame(PING, true, new byte[0])); // a control frame between fragments
    feed(draft, frame(CONTINUATION, false, new byte[0]));
    feed(draft, frame(CONTINUATION, true, slice(text, 4, text.length)));
    assertThat(texts).containsExactly("caf\u00e9 ok");
    assertThat(draft.bufferedBytes()).isZero();

    feed(draft, frame(BINARY, false, new byte[30]));
    feed(draft, frame(CONTINUATION, true, new byte[34])); // exactly the limit
    assertThat(binaries).containsExactly(64);
  }

  @Test
  void aNeverEndingFragmentedMessageIsRefusedWith1009AtTheFragmentPastTheLimit() {
    int limit = 1 << 20;
    BoundedMessageDraft draft = new BoundedMessageDraft(limit);
    byte[] fragment = new byte[64 * 1024 - 1]; // does not divide the limit
    long fed = 0;
    LimitExceededException refusal = null;
    try {
      feed(draft, frame(TEXT, false, fragment));
      fed += fragment.length;
      while (fed < 4L * limit) {
        feed(draft, frame(CONTINUATION, false, fragment));
        fed += fragment.length;
      }
    } catch (LimitExceededException e) {
      refusal = e;
    } catch (InvalidDataException e) {
      throw new AssertionError("refused with " + e.getCloseCode() + ", not 1009", e);
    }
    assertThat(refusal).as("refused before 4x the limit").isNotNull();
    assertThat(refusal.getCloseCode()).isEqualTo(CloseFrame.TOOBIG);
    assertThat(refusal.getMessage()).contains("over " + limit + " bytes");
    assertThat(fed).as("accepted before the refusal").isLessThanOrEqualTo(limit)
        .isGreaterThan(limit - fragment.length);
    assertThat(draft.bufferedBytes()).isZero();
    assertThat(texts).isEmpty();
  }

  @Test
  void oneByteFragmentsCountByTheByteAndEmptyOnesAddNothing() throws Exception {
    BoundedMessageDraft draft = new BoundedMessageDraft(1000);
    feed(draft, frame(TEXT, false, new byte[] {'a'}));
    for (int i = 1; i < 1000; i++) {
      feed(draft, frame(CONTINUATION, false, new byte[] {'a'}));
      feed(draft, frame(CONTINUATION, false, new byte[0]));
    }
    assertThat(draft.bufferedBytes()).isEqualTo(1000);
    assertThatThrownBy(() -> feed(draft, frame(CONTINUATION, false, new byte[] {'a'})))
        .isInstanceOf(LimitExceededException.class);
    assertThat(draft.bufferedBytes()).isZero();
  }

  @Test
  void continuationWithoutAStartAndANewMessageInsideAFragmentedOneAre1002() throws Exception {
    BoundedMessageDraft draft = new BoundedMessageDraft(100);
    assertThatThrownBy(() -> feed(draft, frame(CONTINUATION, true, new byte[] {'x'})))
        .isInstanceOf(InvalidDataException.class)
        .extracting(e -> ((InvalidDataException) e).getCloseCode())
        .isEqualTo(CloseFrame.PROTOCOL_ERROR);
    feed(draft, frame(TEXT, false, new byte[] {'x'}));
    assertThatThrownBy(() -> feed(draft, frame(TEXT, true, new byte[] {'y'})))
        .isInstanceOf(InvalidDataException.class)
        .extracting(e -> ((InvalidDataException) e).getCloseCode())
        .isEqualTo(CloseFrame.PROTOCOL_ERROR);
  }

  @Test
  void aResetLetsGoOfAHalfReceivedMessage() throws Exception {
    BoundedMessageDraft draft = new BoundedMessageDraft(100);
    feed(draft, frame(TEXT, false, new byte[40]));
    assertThat(draft.bufferedBytes()).isEqualTo(40);
    draft.reset(); // the library calls it when the connection closes
    assertThat(draft.bufferedBytes()).isZero();
  }

  @Test
  void eachConnectionGetsItsOwnCopyWithTheSameLimit() throws Exception {
    BoundedMessageDraft draft = new BoundedMessageDraft(100);
    feed(draft, frame(TEXT, false, new byte[40]));
    Draft copy = draft.copyInstance();
    assertThat(copy).isInstanceOf(BoundedMessageDraft.class).isNotSameAs(draft);
    assertThat(((BoundedMessageDraft) copy).maxMessageBytes()).isEqualTo(100);
    assertThat(((BoundedMessageDraft) copy).bufferedBytes()).isZero();
    assertThat(draft.bufferedBytes()).isEqualTo(40);
  }

  @Test
  void aLimitBelowOneIsRefused() {
    assertThatThrownBy(() -> new BoundedMessageDraft(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxMessageBytes");
  }

  /** Parses the bytes as the library does, then processes each frame. */
  private void feed(BoundedMessageDraft draft, byte[] bytes) throws InvalidDataException {
    for (Framedata f : draft.translateFrame(ByteBuffer.wrap(bytes))) {
      draft.processFrame(socket, f);
    }
  }

  /** One unmasked frame, as a server sends it. */
  static byte[] frame(int opcode, boolean fin, byte[] payload) {
    ByteArrayOutputStream f = new ByteArrayOutputStream(payload.length + 10);
    f.write((fin ? 0x80 : 0) | opcode);
    if (payload.length < 126) {
      f.write(payload.length);
    } else if (payload.length < 65536) {
      f.write(126);
      f.write(payload.length >>> 8);
      f.write(payload.length);
    } else {
      f.write(127);
      for (int i = 7; i >= 0; i--) {
        f.write((int) ((long) payload.length >>> (8 * i)));
      }
    }
    f.writeBytes(payload);
    return f.toByteArray();
  }

  private static byte[] slice(byte[] b, int from, int to) {
    return java.util.Arrays.copyOfRange(b, from, to);
  }

  /** Records the messages the library delivers. */
  private final class Recorder extends WebSocketAdapter {
    @Override
    public void onWebsocketMessage(WebSocket conn, String message) {
      texts.add(message);
    }

    @Override
    public void onWebsocketMessage(WebSocket conn, ByteBuffer blob) {
      binaries.add(blob.remaining());
    }

    @Override
    public void onWebsocketPing(WebSocket conn, Framedata f) {} // no socket to answer on

    @Override
    public void onWebsocketOpen(WebSocket conn, Handshakedata d) {}

    @Override
    public void onWebsocketClose(WebSocket ws, int code, String reason, boolean remote) {}

    @Override
    public void onWebsocketClosing(WebSocket ws, int code, String reason, boolean remote) {}

    @Override
    public void onWebsocketCloseInitiated(WebSocket ws, int code, String reason) {}

    @Override
    public void onWebsocketError(WebSocket conn, Exception ex) {}

    @Override
    public void onWriteDemand(WebSocket conn) {}

    @Override
    public InetSocketAddress getLocalSocketAddress(WebSocket conn) {
      return null;
    }

    @Override
    public InetSocketAddress getRemoteSocketAddress(WebSocket conn) {
      return null;
    }
  }
}
