package dev.ddpkit.chat.server;

import dev.ddpkit.reconnect.Ticker;
import java.net.InetAddress;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log of a peer's bad input (a frame the protocol forbids, a message over the limit): one
 * WARN line per connection closed for it, with no stack trace (the peer's mistake is not the
 * server's), and at most {@link #LINES_PER_ADDRESS} lines per address and {@link #LINES_IN_ALL}
 * in all per minute, so that a peer cannot flood the log. The first line past a budget says
 * that the rest of the minute is not logged; the first line of the next minute says how many were
 * not. Timed by the server's {@link Ticker}; thread-safe (sockets are read by several workers).
 */
final class PeerErrorLog {
  private static final Logger log = LoggerFactory.getLogger(PeerErrorLog.class);
  /** Lines per address per window. */
  static final int LINES_PER_ADDRESS = 5;
  /** Lines per window for every address together (an IPv6 client has many addresses). */
  static final int LINES_IN_ALL = 100;
  static final long WINDOW_NANOS = TimeUnit.MINUTES.toNanos(1);
  /** Addresses remembered; the least recently seen is forgotten first. */
  private static final int MAX_ADDRESSES = 10_000;
  private static final int MAX_DETAIL_CHARS = 200;

  /** One key's lines in the current window. */
  private static final class Window {
    final long startNanos;
    final int notLoggedBefore;
    int lines;
    int notLogged;

    Window(long startNanos, int notLoggedBefore) {
      this.startNanos = startNanos;
      this.notLoggedBefore = notLoggedBefore;
    }
  }

  private final Ticker ticker;
  private final LinkedHashMap<InetAddress, Window> byAddress =
      new LinkedHashMap<>(64, 0.75f, /* accessOrder= */ true);
  private Window all;

  PeerErrorLog(Ticker ticker) {
    this.ticker = ticker;
  }

  /** Logs (or counts) one connection from {@code address} closed with {@code code} for {@code detail}. */
  void closed(InetAddress address, int code, String detail) {
    String line = lineFor(address, code, detail);
    if (line != null) {
      log.warn(line);
    }
  }

  /** The line to log, or {@code null} for one over a budget; decided under the lock, logged outside. */
  private synchronized String lineFor(InetAddress address, int code, String detail) {
    long now = ticker.read();
    all = current(all, now);
    Window w = current(byAddress.get(address), now);
    byAddress.put(address, w);
    if (byAddress.size() > MAX_ADDRESSES) {
      Iterator<Map.Entry<InetAddress, Window>> eldest = byAddress.entrySet().iterator();
      eldest.next();
      eldest.remove();
    }
    String from = address == null ? "an unknown address" : address.getHostAddress();
    if (all.lines >= LINES_IN_ALL || w.lines >= LINES_PER_ADDRESS) {
      boolean first = all.lines >= LINES_IN_ALL ? all.notLogged++ == 0 : w.notLogged++ == 0;
      if (!first) {
        return null;
      }
      return all.lines >= LINES_IN_ALL
          ? "more than " + LINES_IN_ALL + " connections closed for bad input this minute; the"
              + " rest of this minute's are not logged"
          : "more than " + LINES_PER_ADDRESS + " connections from " + from + " closed for bad"
              + " input this minute; the rest of this minute's from it are not logged";
    }
    all.lines++;
    w.lines++;
    String line = "closed a connection from " + from + " with " + code + ": " + clip(detail);
    if (w.lines == 1 && w.notLoggedBefore > 0) {
      line += " (" + w.notLoggedBefore + " more from it were not logged in the minute before)";
    }
    return line;
  }

  /** {@code w} if its window is still open at {@code now}, else a new one carrying its count. */
  private static Window current(Window w, long now) {
    if (w == null) {
      return new Window(now, 0);
    }
    return now - w.startNanos < WINDOW_NANOS ? w : new Window(now, w.notLogged);
  }

  private static String clip(String detail) {
    String d = String.valueOf(detail);
    return d.length() <= MAX_DETAIL_CHARS ? d : d.substring(0, MAX_DETAIL_CHARS) + "...";
  }
}
