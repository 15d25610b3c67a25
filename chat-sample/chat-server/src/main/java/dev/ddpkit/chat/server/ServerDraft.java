package dev.ddpkit.chat.server;

import dev.ddpkit.ddp.transport.BoundedMessageDraft;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.java_websocket.WebSocket;
import org.java_websocket.WebSocketImpl;
import org.java_websocket.drafts.Draft;
import org.java_websocket.exceptions.InvalidDataException;
import org.java_websocket.exceptions.InvalidHandshakeException;
import org.java_websocket.framing.Framedata;
import org.java_websocket.handshake.ClientHandshake;
import org.java_websocket.handshake.HandshakeBuilder;
import org.java_websocket.handshake.Handshakedata;
import org.java_websocket.handshake.ServerHandshakeBuilder;

/**
 * The server's RFC 6455 draft: the client transport's {@link BoundedMessageDraft} (a limit on a
 * whole message, checked on every fragment: 1009), plus what a server checks of a client's
 * frames: each must be masked ({@link MaskBitCheck}: 1002 if not).
 *
 * <p>A connection closed for its bad input is closed here, and logged by the {@link PeerErrorLog}
 * (one line, rate-limited per address), instead of by Java-WebSocket: the library logs every
 * refused frame as an ERROR with a stack trace, so a peer sending bad frames could flood the log.
 * For that the draft knows its socket: {@link Endpoint} binds it at the upgrade. An unbound draft
 * leaves refused frames to the library, as the plain draft does.
 *
 * <p>The upgrade request is read by {@link UpgradeRequest} (bounded, and without the library's
 * regular expression per header), and the answer's headers are made here with a SHA-1 digest per
 * thread and a {@code Date} formatted once a second, where the library makes a digest and a
 * {@code SimpleDateFormat} per connection.
 *
 * <p>One instance serves one connection: the library calls {@link #copyInstance()} for each, and
 * the copy is of this class with the same limit and log. Frames of one connection are read and
 * processed on one thread at a time (see {@link Endpoint#queue}).
 */
final class ServerDraft extends BoundedMessageDraft {
  /** RFC 6455's GUID, appended to the client's key for the accept value. */
  private static final byte[] ACCEPT_GUID =
      "258EAFA5-E914-47DA-95CA-C5AB0DC85B11".getBytes(StandardCharsets.US_ASCII);
  private static final ThreadLocal<MessageDigest> SHA1 = ThreadLocal.withInitial(() -> {
    try {
      return MessageDigest.getInstance("SHA-1");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-1", e); // every JDK must have it
    }
  });
  private static final DateTimeFormatter HTTP_DATE =
      DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
          .withZone(ZoneOffset.UTC);
  /** The {@code Date} header of the current second. */
  private static volatile HttpDate date = new HttpDate(0, "");

  private final PeerErrorLog errors;
  private final MaskBitCheck masks = new MaskBitCheck();
  private volatile WebSocket socket;
  /** Set once this draft has closed its connection: nothing more of it is read. */
  private volatile boolean refused;

  /**
   * Creates a draft that accepts messages, fragmented or not, of up to {@code maxMessageBytes}.
   *
   * @param maxMessageBytes the largest message (and frame) accepted, 1 or more
   * @param errors where connections closed for bad input are logged
   */
  ServerDraft(int maxMessageBytes, PeerErrorLog errors) {
    super(maxMessageBytes);
    this.errors = Objects.requireNonNull(errors, "errors");
  }

  @Override
  public Draft copyInstance() {
    return new ServerDraft(maxMessageBytes(), errors);
  }

  /**
   * The upgrade's answer, written by the connection itself (see {@link ServerConnection}: from
   * the thread decoding the upgrade, with the connection's first frame, in one system call and
   * with no wake-up of the selector), so the library has nothing left to queue. Unbound, or for
   * another kind of connection, the library's.
   */
  @Override
  public List<ByteBuffer> createHandshake(Handshakedata handshake) {
    List<ByteBuffer> bytes = super.createHandshake(handshake);
    if (socket instanceof ServerConnection own) {
      own.holdUpgradeAnswer(bytes.toArray(new ByteBuffer[0]));
      return List.of();
    }
    return bytes;
  }

  @Override
  public Handshakedata translateHandshake(ByteBuffer buf) throws InvalidHandshakeException {
    return UpgradeRequest.read(buf);
  }

  /**
   * The answer's headers: those of RFC 6455 section 4.2.2, the client's {@code Connection}
   * echoed, and {@code Date}.
   */
  @Override
  public HandshakeBuilder postProcessHandshakeResponseAsServer(ClientHandshake request,
      ServerHandshakeBuilder response) throws InvalidHandshakeException {
    String key = request.getFieldValue("Sec-WebSocket-Key").trim();
    if (key.isEmpty()) {
      throw new InvalidHandshakeException("missing Sec-WebSocket-Key");
    }
    response.put("Upgrade", "websocket");
    response.put("Connection", request.getFieldValue("Connection"));
    response.put("Sec-WebSocket-Accept", accept(key));
    String extension = getExtension().getProvidedExtensionAsServer();
    if (!extension.isEmpty()) {
      response.put("Sec-WebSocket-Extensions", extension);
    }
    if (getProtocol() != null && !getProtocol().getProvidedProtocol().isEmpty()) {
      response.put("Sec-WebSocket-Protocol", getProtocol().getProvidedProtocol());
    }
    response.setHttpStatusMessage("Switching Protocols");
    response.put("Date", httpDate(System.currentTimeMillis()));
    return response;
  }

  /** {@code Sec-WebSocket-Accept} for a client's key: base64 of SHA-1 of key and GUID. */
  static String accept(String key) {
    MessageDigest sha1 = SHA1.get();
    sha1.update(key.getBytes(StandardCharsets.US_ASCII));
    return Base64.getEncoder().encodeToString(sha1.digest(ACCEPT_GUID));
  }

  /** An HTTP date (RFC 9110 section 5.6.7) for {@code epochMillis}, made once per second. */
  static String httpDate(long epochMillis) {
    long second = epochMillis / 1000;
    HttpDate d = date;
    if (d.second != second) {
      d = new HttpDate(second, HTTP_DATE.format(Instant.ofEpochSecond(second)));
      date = d;
    }
    return d.text;
  }

  private record HttpDate(long second, String text) {}

  /** The connection this draft reads, told by {@link Endpoint} at the upgrade. */
  void bind(WebSocket conn) {
    this.socket = conn;
  }

  @Override
  public List<Framedata> translateFrame(ByteBuffer buffer) throws InvalidDataException {
    if (refused) {
      buffer.position(buffer.limit());
      return List.of();
    }
    try {
      masks.check(buffer);
      return super.translateFrame(buffer);
    } catch (InvalidDataException e) {
      refuse(socket, e);
      return List.of();
    }
  }

  @Override
  public void processFrame(WebSocketImpl conn, Framedata frame) throws InvalidDataException {
    if (refused) {
      return; // the other frames read with the one refused
    }
    try {
      super.processFrame(conn, frame);
    } catch (InvalidDataException e) {
      refuse(conn, e);
    }
  }

  /** Closes {@code conn} with the code of {@code e} and logs it once; unbound, rethrows it. */
  private void refuse(WebSocket conn, InvalidDataException e) throws InvalidDataException {
    if (conn == null) {
      throw e;
    }
    refused = true;
    errors.closed(OpenSockets.addressOf(conn), e.getCloseCode(), e.getMessage());
    conn.close(e.getCloseCode(), e.getMessage());
  }

  @Override
  public void reset() {
    super.reset();
    masks.reset();
  }

  @Override
  public String toString() {
    return "ServerDraft{maxMessageBytes=" + maxMessageBytes() + "}";
  }
}
