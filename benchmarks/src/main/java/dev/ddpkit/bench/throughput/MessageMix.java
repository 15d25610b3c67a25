package dev.ddpkit.bench.throughput;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.chat.ChatClient;
import dev.ddpkit.chat.RandomIds;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A reproducible stream of room messages as a Rocket.Chat-style server sends them: {@code changed}
 * frames of {@code stream-room-messages} with {@code fields.eventName = rid} and {@code
 * fields.args = [message]}, spread over several rooms and users, with texts of mixed lengths, and a
 * few frames that repeat a message sent shortly before (what a server re-sends after a retried
 * {@code sendMessage}): a client must show those once.
 *
 * <p>Built with Jackson from trees, never by pasting strings.
 */
public final class MessageMix {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String[] WORDS = {
    "ok", "the", "deploy", "is", "green", "again", "who", "broke", "build", "lunch", "?", "thanks",
    "see", "PR", "#4211", "reconnect", "works", "now", "on", "staging", "please", "review", "I",
    "think", "we", "should", "ship", "it", "tomorrow", ":)", "logs", "say", "timeout", "after",
    "30s", "https://example.invalid/issue/77", "meeting", "moved", "to", "3pm"
  };
  private static final long T0_MILLIS = 1_900_000_000_000L;

  private final List<String> rooms;
  private final List<String> frames;
  private final boolean[] duplicate;
  private final int unique;

  private MessageMix(List<String> rooms, List<String> frames, boolean[] duplicate, int unique) {
    this.rooms = rooms;
    this.frames = frames;
    this.duplicate = duplicate;
    this.unique = unique;
  }

  /**
   * Generates a mix.
   *
   * @param uniqueMessages how many distinct messages
   * @param roomCount how many rooms they are spread over (uniformly at random)
   * @param duplicateRate the share of messages sent a second time, a few frames later (0 to 0.5)
   * @param seed the random seed: the same arguments give the same frames
   */
  public static MessageMix generate(
      int uniqueMessages, int roomCount, double duplicateRate, long seed) {
    if (uniqueMessages < 1) {
      throw new IllegalArgumentException("uniqueMessages must be positive: " + uniqueMessages);
    }
    if (roomCount < 1) {
      throw new IllegalArgumentException("roomCount must be positive: " + roomCount);
    }
    if (duplicateRate < 0 || duplicateRate > 0.5) {
      throw new IllegalArgumentException("duplicateRate must be in [0, 0.5]: " + duplicateRate);
    }
    Random random = new Random(seed);
    RandomIds ids = new RandomIds(random);
    List<String> rooms = new ArrayList<>();
    for (int r = 0; r < roomCount; r++) {
      rooms.add("room-" + r);
    }
    List<String> users = List.of("alice", "bob", "carol", "dave", "erin", "frank");
    List<String> frames = new ArrayList<>();
    List<Boolean> dup = new ArrayList<>();
    // A repeat goes out 1 to 8 frames after its original, as a server re-sending after a retry.
    List<int[]> pending = new ArrayList<>(); // {frames left, index of the original}
    for (int i = 0; i < uniqueMessages; i++) {
      String rid = rooms.get(random.nextInt(roomCount));
      String user = users.get(random.nextInt(users.size()));
      String frame = frame(ids.next(), rid, user, text(random), T0_MILLIS + 7L * i);
      frames.add(frame);
      dup.add(false);
      if (random.nextDouble() < duplicateRate) {
        pending.add(new int[] {1 + random.nextInt(8), frames.size() - 1});
      }
      for (int p = pending.size() - 1; p >= 0; p--) {
        int[] due = pending.get(p);
        if (--due[0] <= 0) {
          frames.add(frames.get(due[1]));
          dup.add(true);
          pending.remove(p);
        }
      }
    }
    for (int[] due : pending) {
      frames.add(frames.get(due[1]));
      dup.add(true);
    }
    boolean[] d = new boolean[dup.size()];
    for (int i = 0; i < d.length; i++) {
      d[i] = dup.get(i);
    }
    return new MessageMix(List.copyOf(rooms), List.copyOf(frames), d, uniqueMessages);
  }

  /** A message text: mostly short, some paragraphs, a rare long paste. */
  static String text(Random random) {
    double p = random.nextDouble();
    int length;
    if (p < 0.6) {
      length = 8 + random.nextInt(72);
    } else if (p < 0.9) {
      length = 80 + random.nextInt(220);
    } else if (p < 0.99) {
      length = 300 + random.nextInt(700);
    } else {
      length = 1000 + random.nextInt(3000);
    }
    StringBuilder sb = new StringBuilder(length + 16);
    while (sb.length() < length) {
      if (sb.length() > 0) {
        sb.append(' ');
      }
      sb.append(WORDS[random.nextInt(WORDS.length)]);
    }
    if (random.nextInt(20) == 0) {
      sb.append(" \u00e7a marche \ud83d\ude80"); // non-ASCII now and then
    }
    return sb.toString();
  }

  private static String frame(String id, String rid, String user, String text, long ts) {
    ObjectNode msg = MAPPER.createObjectNode();
    msg.put("_id", id);
    msg.put("rid", rid);
    msg.put("msg", text);
    msg.putObject("ts").put("$date", ts);
    ObjectNode u = msg.putObject("u");
    u.put("_id", "user-" + user);
    u.put("username", user);
    msg.putArray("mentions");
    msg.putArray("channels");
    msg.putObject("_updatedAt").put("$date", ts);
    ObjectNode changed = MAPPER.createObjectNode();
    changed.put("msg", "changed");
    changed.put("collection", ChatClient.STREAM);
    changed.put("id", "id");
    ObjectNode fields = changed.putObject("fields");
    fields.put("eventName", rid);
    fields.putArray("args").add(msg);
    try {
      return MAPPER.writeValueAsString(changed);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a frame", e);
    }
  }

  /** Returns the room ids. */
  public List<String> rooms() {
    return rooms;
  }

  /** Returns every frame, duplicates included, in sending order. */
  public List<String> frames() {
    return frames;
  }

  /** Returns the number of frames. */
  public int size() {
    return frames.size();
  }

  /** Returns the number of distinct messages. */
  public int uniqueCount() {
    return unique;
  }

  /** Returns whether frame {@code i} repeats a message sent a few frames before. */
  public boolean isDuplicate(int i) {
    return duplicate[i];
  }

  /** Returns how many of the frames {@code [from, to)} are not repeats. */
  public int newMessagesIn(int from, int to) {
    int n = 0;
    for (int i = from; i < to; i++) {
      if (!duplicate[i]) {
        n++;
      }
    }
    return n;
  }

  /** Returns the mean frame length in characters. */
  public double meanFrameChars() {
    long sum = 0;
    for (String f : frames) {
      sum += f.length();
    }
    return (double) sum / frames.size();
  }
}
