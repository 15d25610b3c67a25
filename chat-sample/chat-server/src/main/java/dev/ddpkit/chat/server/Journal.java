package dev.ddpkit.chat.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;

/**
 * The format of the server's journal file, and its recovery after a crash or a power loss.
 *
 * <p>Version 2 (this one) starts with the line {@value #HEADER_TEXT}, then holds one record a
 * line: the byte {@code 0x1E} (ASCII record separator), the payload's length in bytes (decimal), a
 * space, the CRC32C of the payload (8 hex digits), a space, the payload (one JSON object, UTF-8)
 * and {@code '\n'}. JSON escapes every control character inside strings, so a raw {@code 0x1E}
 * only ever starts a record: after a damaged record, the next whole record can be found again.
 *
 * <p>Recovery tells a damaged tail from damage in the middle. A power loss leaves at most the
 * batch being written when it struck torn, zero-filled or garbled, and that batch was never
 * acknowledged (acknowledgements wait for the force), so it is cut off. A bad record followed by
 * a whole one is something else (a bad disk, a hand edit): the open stops with the byte offset,
 * rather than silently dropping what follows.
 *
 * <p>Version 1 (one JSON object a line, no checksum) is still read, so that a journal written by
 * an older server is migrated: the store writes it out again as version 2 on open.
 */
final class Journal {
  /** The first line of a version 2 journal, without its newline. */
  static final String HEADER_TEXT = "ddpkit-journal 2";

  private static final byte[] HEADER = (HEADER_TEXT + "\n").getBytes(StandardCharsets.US_ASCII);
  private static final byte MARK = 0x1E;
  private static final int MAX_LENGTH_DIGITS = 9;
  private static final int CRC_DIGITS = 8;
  private static final Pattern RECORD_START =
      Pattern.compile("\\{\"t\":\"(\\w{1,16})\"(?:,\"v\":\\{\"_id\":\"([^\"\\\\]{1,64})\")?");

  private Journal() {}

  /** One whole record found in a journal: where it starts, and its JSON payload. */
  record Entry(long offset, String json) {}

  /**
   * What a journal file holds.
   *
   * @param version 1 (legacy lines without checksums) or 2
   * @param entries every whole record, in order
   * @param validEnd where the last whole record ends: everything after it is to be cut
   * @param lost what lies after {@code validEnd}, described for the log; null when nothing does
   */
  record Contents(int version, List<Entry> entries, long validEnd, String lost) {
    /** True when the file needs its header written, or a damaged tail cut off. */
    boolean needsRepair(long size) {
      return validEnd < size || validEnd == 0;
    }
  }

  /** The bytes a new version 2 journal starts with. */
  static byte[] header() {
    return HEADER.clone();
  }

  /** Appends one record holding {@code json} to {@code out}. */
  static void encode(String json, ByteArrayOutputStream out) {
    byte[] payload = json.getBytes(StandardCharsets.UTF_8);
    CRC32C crc = new CRC32C();
    crc.update(payload);
    String head = payload.length + " " + String.format("%08x", crc.getValue()) + " ";
    out.write(MARK);
    out.writeBytes(head.getBytes(StandardCharsets.US_ASCII));
    out.writeBytes(payload);
    out.write('\n');
  }

  /**
   * Reads a journal's bytes: every whole record, and where the damaged tail starts, if any.
   *
   * @throws IllegalStateException naming the file and the byte offset if a record in the middle
   *     is damaged, or if the file is no journal this server wrote
   */
  static Contents read(byte[] bytes, Path file) {
    if (bytes.length == 0 || isPrefixOfHeader(bytes)) {
      // Empty, or a crash while the header of a new journal was being written.
      return new Contents(2, List.of(), 0, bytes.length == 0 ? null
          : bytes.length + " bytes of a torn header (no records)");
    }
    if (startsWithHeader(bytes)) {
      return readVersion2(bytes, file);
    }
    if (bytes[0] == '{') {
      return readVersion1(bytes, file);
    }
    throw new IllegalStateException("journal " + file + " is not a ddpkit journal: it starts with"
        + " neither '" + HEADER_TEXT + "' nor a version 1 record ('{')");
  }

  private static Contents readVersion2(byte[] bytes, Path file) {
    List<Entry> entries = new ArrayList<>();
    int pos = HEADER.length;
    while (pos < bytes.length) {
      int end = recordEnd(bytes, pos);
      if (end < 0) {
        break;
      }
      entries.add(new Entry(pos, payload(bytes, pos, end)));
      pos = end;
    }
    if (pos == bytes.length) {
      return new Contents(2, entries, pos, null);
    }
    int next = nextWholeRecord(bytes, pos + 1);
    if (next >= 0) {
      throw new IllegalStateException("journal " + file + " is corrupt at byte offset " + pos
          + ": the record there is damaged but a whole record follows at byte offset " + next
          + " (" + entries.size() + " whole records before it). The server will not skip it:"
          + " restore the file from a backup, or cut it at byte offset " + pos
          + " to accept losing everything from there.");
    }
    return new Contents(2, entries, pos, describeLoss(bytes, pos));
  }

  /** The end (exclusive) of the whole record starting at {@code pos}, or -1 if none starts there. */
  private static int recordEnd(byte[] b, int pos) {
    if (b[pos] != MARK) {
      return -1;
    }
    int i = pos + 1;
    long length = 0;
    int digits = 0;
    while (i < b.length && b[i] >= '0' && b[i] <= '9' && digits < MAX_LENGTH_DIGITS) {
      length = length * 10 + (b[i] - '0');
      i++;
      digits++;
    }
    if (digits == 0 || i >= b.length || b[i] != ' ') {
      return -1;
    }
    i++;
    long crc = 0;
    for (int d = 0; d < CRC_DIGITS; d++, i++) {
      int v = i < b.length ? Character.digit(b[i], 16) : -1;
      if (v < 0 || (b[i] >= 'A' && b[i] <= 'F')) {
        return -1;
      }
      crc = (crc << 4) | v;
    }
    if (i >= b.length || b[i] != ' ') {
      return -1;
    }
    int start = i + 1;
    long newline = start + length;
    if (newline >= b.length || b[(int) newline] != '\n') {
      return -1;
    }
    CRC32C check = new CRC32C();
    check.update(b, start, (int) length);
    return check.getValue() == crc ? (int) newline + 1 : -1;
  }

  private static String payload(byte[] b, int pos, int end) {
    int start = pos;
    for (int spaces = 0; spaces < 2; start++) {
      if (b[start] == ' ') {
        spaces++;
      }
    }
    return new String(b, start, end - 1 - start, StandardCharsets.UTF_8);
  }

  private static int nextWholeRecord(byte[] b, int from) {
    for (int i = from; i < b.length; i++) {
      if (b[i] == MARK && recordEnd(b, i) >= 0) {
        return i;
      }
    }
    return -1;
  }

  /** What a cut tail held, as far as it can be read: its size and the records begun in it. */
  private static String describeLoss(byte[] b, int pos) {
    // ISO-8859-1 maps every byte to one char, so a regex offset is a byte offset.
    String tail = new String(b, pos, b.length - pos, StandardCharsets.ISO_8859_1);
    Matcher m = RECORD_START.matcher(tail);
    List<String> begun = new ArrayList<>();
    while (m.find()) {
      // Only a message's id is named: other keys are token hashes and user names.
      begun.add(m.group(2) != null && m.group(1).equals("msg") ? "msg " + m.group(2) : m.group(1));
    }
    return (b.length - pos) + " bytes, " + (begun.isEmpty() ? "no readable record start"
        : begun.size() + " record(s) begun " + begun);
  }

  private static Contents readVersion1(byte[] bytes, Path file) {
    List<Entry> entries = new ArrayList<>();
    int lineStart = 0;
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == '\n') {
        String line = new String(bytes, lineStart, i - lineStart, StandardCharsets.UTF_8);
        if (!line.startsWith("{")) {
          throw new IllegalStateException("journal " + file + " (version 1) is corrupt at line "
              + (entries.size() + 1) + ", byte offset " + lineStart);
        }
        entries.add(new Entry(lineStart, line));
        lineStart = i + 1;
      }
    }
    // Version 1 could only tell a torn last line by its missing newline.
    String lost = lineStart < bytes.length
        ? (bytes.length - lineStart) + " bytes of a torn last line" : null;
    return new Contents(1, entries, lineStart, lost);
  }

  private static boolean startsWithHeader(byte[] b) {
    if (b.length < HEADER.length) {
      return false;
    }
    for (int i = 0; i < HEADER.length; i++) {
      if (b[i] != HEADER[i]) {
        return false;
      }
    }
    return true;
  }

  private static boolean isPrefixOfHeader(byte[] b) {
    if (b.length >= HEADER.length) {
      return false;
    }
    for (int i = 0; i < b.length; i++) {
      if (b[i] != HEADER[i]) {
        return false;
      }
    }
    return true;
  }

  /** Reads a whole file; a missing file reads as empty. */
  static byte[] readAll(Path file) throws IOException {
    if (!Files.exists(file)) {
      return new byte[0];
    }
    long size = Files.size(file);
    if (size > Integer.MAX_VALUE - 16) {
      throw new IllegalStateException("journal too large to replay: " + size + " bytes");
    }
    return Files.readAllBytes(file);
  }

  /**
   * Writes a fresh version 2 journal holding {@code records} beside {@code file}, forces it, and
   * moves it over {@code file} atomically; a crash at any point leaves one whole journal.
   */
  static void writeSnapshot(Path file, Iterable<String> records) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".compact");
    try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
      ByteArrayOutputStream buf = new ByteArrayOutputStream(1 << 16);
      buf.writeBytes(HEADER);
      for (String r : records) {
        encode(r, buf);
        if (buf.size() >= 1 << 16) {
          writeFully(out, buf);
        }
      }
      writeFully(out, buf);
      out.force(true);
    }
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    forceDirectory(file.getParent());
  }

  /** Writes and empties {@code buf}. */
  static void writeFully(FileChannel ch, ByteArrayOutputStream buf) throws IOException {
    ByteBuffer bb = ByteBuffer.wrap(buf.toByteArray());
    while (bb.hasRemaining()) {
      ch.write(bb);
    }
    buf.reset();
  }

  /** Forces a directory's entries (a created or renamed file) to the device. */
  static void forceDirectory(Path dir) throws IOException {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    }
  }
}
