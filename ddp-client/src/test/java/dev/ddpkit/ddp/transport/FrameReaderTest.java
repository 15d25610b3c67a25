package dev.ddpkit.ddp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.java_websocket.drafts.Draft_6455;
import org.java_websocket.enums.Opcode;
import org.java_websocket.exceptions.InvalidDataException;
import org.java_websocket.framing.Framedata;
import org.junit.jupiter.api.Test;

/**
 * {@link FrameReader} cuts frames as Java-WebSocket's own draft does: the same frames from the same
 * bytes however the reads split them, and the same close code where the library refuses, on
 * seeded random streams of well-formed and broken frames; and its UTF-8 check agrees with the
 * JDK's strict decoder.
 */
class FrameReaderTest {
  private static final int MAX = 70_000;

  @Test
  void framesAndRefusalsAreTheLibrarysOnRandomStreamsReadInRandomPieces() throws Exception {
    Random random = new Random(0xF4A3E5L);
    int refused = 0;
    int frames = 0;
    for (int run = 0; run < 1_500; run++) {
      byte[] stream = stream(random);
      Outcome ours = outcome(new FrameReader(MAX)::read, stream, new Random(run));
      Outcome library = outcome(new Draft_6455(List.of(), MAX)::translateFrame, stream,
          new Random(run));
      assertThat(ours.refusal()).as("run %d: %s / %s", run, ours, library)
          .isEqualTo(library.refusal());
      if (ours.refusal().isEmpty()) {
        assertThat(ours.frames()).as("run %d", run).isEqualTo(library.frames());
        // How the reads split the stream changes nothing.
        assertThat(outcome(new FrameReader(MAX)::read, stream, new Random(-run)))
            .as("run %d, read in other pieces", run).isEqualTo(ours);
      } else {
        // Refused: the library checks a text frame's UTF-8 partly as it reads it and partly
        // when it hands it on (a sequence cut short at the end), ours all as it reads it, so the
        // frames of the same read before the refusal may differ; those before it are the same.
        int n = Math.min(ours.frames().size(), library.frames().size());
        assertThat(ours.frames().subList(0, n)).as("run %d", run)
            .isEqualTo(library.frames().subList(0, n));
        refused++;
      }
      frames += ours.frames().size();
    }
    assertThat(refused).as("streams refused").isBetween(150, 1_350);
    assertThat(frames).as("frames read").isGreaterThan(2_500);
  }

  @Test
  void utf8CheckAgreesWithTheJdksStrictDecoder() {
    Random random = new Random(0x0DF8L);
    int invalid = 0;
    for (int i = 0; i < 200_000; i++) {
      byte[] bytes = utf8ish(random, random.nextInt(24));
      boolean jdk = strictlyDecodes(bytes);
      assertThat(FrameReader.isUtf8(bytes, 0, bytes.length))
          .as("%s", Arrays.toString(bytes)).isEqualTo(jdk);
      invalid += jdk ? 0 : 1;
    }
    assertThat(invalid).isBetween(20_000, 180_000);
  }

  /** The frames read, one line each, and the close code of a refusal (empty if none). */
  record Outcome(List<String> frames, String refusal) {}

  /**
   * Reads {@code stream} in random pieces, then checks each whole text frame's UTF-8 strictly, as
   * the library does before it hands the text on (a frame ours let through must pass it too).
   */
  private static Outcome outcome(Translator t, byte[] stream, Random pieces) {
    List<String> frames = new ArrayList<>();
    int at = 0;
    try {
      while (at < stream.length) {
        int n = 1 + pieces.nextInt(Math.min(stream.length - at, pieces.nextBoolean() ? 7 : 20_000));
        for (Framedata f : t.translate(ByteBuffer.wrap(Arrays.copyOfRange(stream, at, at + n)))) {
          ByteBuffer p = f.getPayloadData();
          byte[] payload = new byte[p.remaining()];
          p.duplicate().get(payload);
          if (f.getOpcode() == Opcode.TEXT && f.isFin() && !strictlyDecodes(payload)) {
            return new Outcome(frames, "1007");
          }
          frames.add(f.getOpcode() + (f.isFin() ? " fin " : " more ") + Arrays.hashCode(payload)
              + "/" + payload.length);
        }
        at += n;
      }
    } catch (InvalidDataException e) {
      return new Outcome(frames, String.valueOf(e.getCloseCode()));
    } catch (RuntimeException e) {
      // The library's own: a close frame whose reason is not UTF-8 fails its isValid() with an
      // NPE, which the library's reader turns into a 1011 close. The same must come out of ours.
      return new Outcome(frames, e.getClass().getName());
    }
    return new Outcome(frames, "");
  }

  /** A stream of 1 to 6 frames: mostly well-formed text, now and then something broken. */
  private static byte[] stream(Random r) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int n = 1 + r.nextInt(6);
    for (int i = 0; i < n; i++) {
      int kind = r.nextInt(20);
      int opcode = switch (kind) {
        case 0 -> 2; // binary
        case 1 -> 9; // ping
        case 2 -> 10; // pong
        case 3 -> 8; // close
        case 4 -> 3 + r.nextInt(5); // reserved: refused
        case 5 -> 0; // a continuation
        default -> 1; // text
      };
      boolean fin = kind == 6 ? false : r.nextInt(30) != 0;
      int rsv = r.nextInt(40) == 0 ? 1 + r.nextInt(7) : 0;
      byte[] payload;
      if (opcode == 8) {
        payload = r.nextBoolean() ? new byte[0]
            : concat(new byte[] {(byte) 0x03, (byte) (r.nextBoolean() ? 0xE8 : 0xF7)},
                utf8ish(r, r.nextInt(10)));
      } else if (opcode >= 8) {
        payload = random(r, r.nextInt(12) == 0 ? 126 + r.nextInt(10) : r.nextInt(60));
      } else if (opcode == 1 && fin) {
        payload = r.nextInt(8) == 0 ? utf8ish(r, r.nextInt(40)) : text(r);
      } else {
        payload = text(r); // fragments: whole characters (the library checks each alone)
      }
      if (r.nextInt(60) == 0) {
        payload = new byte[MAX + 1 + r.nextInt(100)]; // over the limit: 1009
      }
      write(out, (fin ? 0x80 : 0) | (rsv << 4) | opcode, payload, r.nextInt(5) == 0, r);
    }
    return out.toByteArray();
  }

  private static void write(ByteArrayOutputStream out, int b1, byte[] payload, boolean mask,
      Random r) {
    out.write(b1);
    int len = payload.length;
    int m = mask ? 0x80 : 0;
    if (len <= 125 && r.nextInt(10) != 0) {
      out.write(m | len);
    } else if (len <= 0xFFFF && r.nextBoolean()) {
      out.write(m | 126);
      out.write(len >> 8);
      out.write(len & 0xFF);
    } else {
      out.write(m | 127);
      long l = r.nextInt(100) == 0 ? -1L : len; // a negative 64-bit length: refused
      for (int i = 7; i >= 0; i--) {
        out.write((int) (l >>> (8 * i)) & 0xFF);
      }
    }
    byte[] key = new byte[4];
    if (mask) {
      r.nextBytes(key);
      out.write(key, 0, 4);
    }
    for (int i = 0; i < len; i++) {
      out.write(payload[i] ^ (mask ? key[i & 3] : 0));
    }
  }

  private static byte[] text(Random r) {
    StringBuilder s = new StringBuilder();
    int n = r.nextInt(10) == 0 ? 2_000 + r.nextInt(3_000) : r.nextInt(300);
    String alphabet = "abcdefghij {}\":,0123456789é✓日😀";
    for (int i = 0; i < n; i++) {
      int at = r.nextInt(alphabet.length());
      s.appendCodePoint(alphabet.codePointAt(Character.isLowSurrogate(alphabet.charAt(at))
          ? at - 1 : at));
    }
    return s.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Bytes near UTF-8: valid sequences, and now and then a byte out of place. */
  private static byte[] utf8ish(Random r, int parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < parts; i++) {
      switch (r.nextInt(12)) {
        case 0 -> out.write(0x80 + r.nextInt(0x80)); // any byte with the high bit
        case 1 -> out.write(0xC0 + r.nextInt(0x40)); // a lead, maybe cut short
        case 2 -> out.writeBytes(new byte[] {(byte) 0xED, (byte) (0x80 + r.nextInt(0x40)),
            (byte) (0x80 + r.nextInt(0x40))}); // surrogates and their neighbours
        case 3 -> out.writeBytes(new byte[] {(byte) (0xE0 + r.nextInt(2) * 0x10),
            (byte) (0x80 + r.nextInt(0x40)), (byte) (0x80 + r.nextInt(0x40)),
            (byte) (0x80 + r.nextInt(0x40))}); // overlong or four-byte edges
        case 4 -> out.writeBytes(new byte[] {(byte) (0xF0 + r.nextInt(6)),
            (byte) (0x80 + r.nextInt(0x40)), (byte) (0x80 + r.nextInt(0x40)),
            (byte) (0x80 + r.nextInt(0x40))});
        default -> {
          int cp = r.nextInt(4) == 0 ? r.nextInt(0x110000) : r.nextInt(0x80);
          if (cp < 0xD800 || cp > 0xDFFF) {
            out.writeBytes(new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8));
          }
        }
      }
    }
    return out.toByteArray();
  }

  private static boolean strictlyDecodes(byte[] bytes) {
    try {
      CharBuffer unused = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  private static byte[] random(Random r, int n) {
    byte[] b = new byte[n];
    r.nextBytes(b);
    return b;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  @FunctionalInterface
  private interface Translator {
    List<Framedata> translate(ByteBuffer b) throws InvalidDataException;
  }

}
