package dev.ddpkit.chat.reliability;

import dev.ddpkit.chat.ChatMessage;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The order one client was shown its messages in, checked two ways as they come: within a room,
 * time stamps never go back ({@link dev.ddpkit.chat.ChatListener}'s promise), and one sender's
 * messages come in the order that sender wrote them (its outbox's promise; the writer numbers
 * them in the text, {@code "#17"}). Calls for one client never overlap, but the report reads the
 * counts from another thread, hence the concurrent fields.
 */
final class OrderCheck {
  private static final Pattern SEQUENCE = Pattern.compile(" #(\\d+) ");

  private final Map<String, Instant> lastTs = new ConcurrentHashMap<>();
  private final Map<String, Long> lastSequence = new ConcurrentHashMap<>();
  private final AtomicLong tsBackwards = new AtomicLong();
  private final AtomicLong senderBackwards = new AtomicLong();

  /** The text a writer gives the {@code sequence}-th message of {@code user}. */
  static String text(String user, long sequence, String when) {
    return "from " + user + " #" + sequence + " at " + when;
  }

  /** Records a message shown to this client. */
  void shown(ChatMessage m) {
    Instant previous = lastTs.put(m.rid(), m.ts());
    if (previous != null && m.ts().isBefore(previous)) {
      tsBackwards.incrementAndGet();
      lastTs.put(m.rid(), previous); // keep the newest, so one late message counts once
    }
    Matcher seq = SEQUENCE.matcher(m.text());
    if (seq.find()) {
      String key = m.rid() + '\u0000' + m.user();
      long n = Long.parseLong(seq.group(1));
      Long before = lastSequence.get(key);
      if (before != null && n < before) {
        senderBackwards.incrementAndGet();
      } else {
        lastSequence.put(key, n);
      }
    }
  }

  /** Messages shown with a time stamp older than one shown before them in the same room. */
  long tsBackwards() {
    return tsBackwards.get();
  }

  /** Messages shown after a later one of the same sender in the same room. */
  long senderBackwards() {
    return senderBackwards.get();
  }
}
