package dev.ddpkit.chat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The ordering and deduplication of one room's messages, with no I/O: it decides which messages to
 * show and in which order. Not thread-safe; the {@link ChatClient} touches it on its loop only.
 *
 * <p>Live messages are shown at once, each id once. While a catch-up ({@code loadHistory} or
 * {@code loadMissedMessages}) is outstanding, live messages are held back; when the last catch-up
 * ends, what it fetched and what was held are shown together, in time-stamp order, minus anything
 * already shown. So a reconnect never shows a message twice nor out of order.
 *
 * <p>Each catch-up is a {@link CatchUp} token from {@link #beginCatchUp()}, ended by {@link
 * #completeCatchUp} or {@link #abortCatchUp}: a second end of the same token is ignored, so a
 * path that ends a catch-up twice cannot release another one's held messages early.
 */
public final class RoomTimeline {
  /** Orders messages by time stamp, then id, so equal time stamps still have one order. */
  public static final Comparator<ChatMessage> ORDER =
      Comparator.comparing(ChatMessage::ts).thenComparing(ChatMessage::id);

  private final String rid;
  private final int maxSeenIds;
  private final int maxHeld;
  // Insertion-ordered so the oldest ids are forgotten first: memory stays bounded.
  private final LinkedHashMap<String, Boolean> seen;
  private final Map<String, ChatMessage> held = new LinkedHashMap<>();
  private int pendingCatchUps;
  private Instant lastSeen;
  private boolean fromStart; // the room was empty when its history was loaded

  /**
   * Creates an empty timeline.
   *
   * @param rid the room id
   * @param maxSeenIds how many shown ids to remember for deduplication (older ones are forgotten)
   * @param maxHeld how many live messages to hold back during a catch-up before showing them anyway
   */
  public RoomTimeline(String rid, int maxSeenIds, int maxHeld) {
    this.rid = Objects.requireNonNull(rid, "rid");
    if (maxSeenIds < 1) {
      throw new IllegalArgumentException("maxSeenIds must be positive: " + maxSeenIds);
    }
    if (maxHeld < 0) {
      throw new IllegalArgumentException("maxHeld must not be negative: " + maxHeld);
    }
    this.maxSeenIds = maxSeenIds;
    this.maxHeld = maxHeld;
    this.seen =
        new LinkedHashMap<>() {
          private static final long serialVersionUID = 1L;

          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > RoomTimeline.this.maxSeenIds;
          }
        };
  }

  /** Returns the room id. */
  public String rid() {
    return rid;
  }

  /** Returns the newest time stamp shown (or set by {@link #markJoined}), if any. */
  public Optional<Instant> lastSeen() {
    return Optional.ofNullable(lastSeen);
  }

  /**
   * Returns where a catch-up should start: {@link #lastSeen()} minus {@code overlap} (messages
   * inserted concurrently may carry a slightly older time stamp than one already shown, and never
   * before the epoch); the epoch if nothing was seen but the room was empty when its history was
   * loaded ({@link #markHistoryLoaded()}); else {@code fallback}.
   *
   * <p>Every time stamp this uses is the server's, except {@code fallback} and {@link
   * #markJoined}: a device clock running ahead of the server's would start the catch-up after
   * messages it never saw.
   */
  public Instant catchUpSince(Duration overlap, Instant fallback) {
    if (lastSeen == null) {
      return fromStart ? Instant.EPOCH : fallback;
    }
    Instant since = lastSeen.minus(overlap);
    return since.isBefore(Instant.EPOCH) ? Instant.EPOCH : since;
  }

  /**
   * Returns the server time a catch-up starts from: the newest time stamp shown, or the epoch if the
   * room was empty when its history was loaded; empty if neither (the room has no history yet, and
   * its history is loaded instead of guessing from the device's clock).
   */
  public Optional<Instant> catchUpPoint() {
    if (lastSeen != null) {
      return Optional.of(lastSeen);
    }
    return fromStart ? Optional.of(Instant.EPOCH) : Optional.empty();
  }

  /**
   * Records that the room was live at server time {@code at} (its last message's time when its
   * stream was live), if nothing newer was seen: a catch-up starts there. Never the device's
   * clock, which may run ahead of the server's.
   */
  public void markJoined(Instant at) {
    advance(at);
  }

  /**
   * Records that the room's history was loaded: if it showed no message, the room was empty then,
   * and a catch-up asks for everything from the start of the room rather than from a clock.
   */
  public void markHistoryLoaded() {
    if (lastSeen == null) {
      fromStart = true;
    }
  }

  /** Returns whether a catch-up is outstanding. */
  public boolean catchingUp() {
    return pendingCatchUps > 0;
  }

  /** Returns how many live messages are held back. */
  public int heldCount() {
    return held.size();
  }

  /** Returns whether a message with this id was shown. */
  public boolean shown(String id) {
    return seen.containsKey(id);
  }

  /**
   * Starts a catch-up: live messages are held until it ends. Every token returned must be ended
   * once, else the room's live messages stay held.
   */
  public CatchUp beginCatchUp() {
    pendingCatchUps++;
    return new CatchUp(this);
  }

  /**
   * Offers a live message (from the stream). Returns what to show now: the message if it is new
   * and no catch-up is outstanding, nothing otherwise.
   */
  public List<ChatMessage> offerLive(ChatMessage message) {
    checkRoom(message);
    if (seen.containsKey(message.id())) {
      return List.of();
    }
    if (pendingCatchUps > 0 && held.size() < maxHeld) {
      held.putIfAbsent(message.id(), message);
      return List.of();
    }
    return List.of(show(message));
  }

  /**
   * Ends a catch-up with what it fetched (any order). Returns what to show now, in order: nothing
   * if another catch-up is still outstanding (the fetched messages are held with the rest), or if
   * this one was ended already.
   */
  public List<ChatMessage> completeCatchUp(CatchUp catchUp, List<ChatMessage> fetched) {
    if (!end(catchUp)) {
      return List.of();
    }
    for (ChatMessage m : fetched) {
      checkRoom(m);
      if (!seen.containsKey(m.id())) {
        held.putIfAbsent(m.id(), m);
      }
    }
    return release();
  }

  /**
   * Ends a catch-up that failed. Returns the held messages to show now, in order (nothing if this
   * catch-up was ended already).
   */
  public List<ChatMessage> abortCatchUp(CatchUp catchUp) {
    return end(catchUp) ? release() : List.of();
  }

  /** Marks the token ended; returns whether it was pending. */
  private boolean end(CatchUp catchUp) {
    Objects.requireNonNull(catchUp, "catchUp");
    if (catchUp.timeline != this) {
      throw new IllegalArgumentException("catch-up of room " + catchUp.timeline.rid + " ended in "
          + rid);
    }
    if (catchUp.ended) {
      return false;
    }
    catchUp.ended = true;
    pendingCatchUps--;
    return true;
  }

  private List<ChatMessage> release() {
    if (pendingCatchUps > 0 || held.isEmpty()) {
      return List.of();
    }
    List<ChatMessage> out = new ArrayList<>(held.values());
    held.clear();
    out.sort(ORDER);
    List<ChatMessage> shown = new ArrayList<>(out.size());
    for (ChatMessage m : out) {
      if (!seen.containsKey(m.id())) {
        shown.add(show(m));
      }
    }
    return shown;
  }

  private ChatMessage show(ChatMessage m) {
    seen.put(m.id(), Boolean.TRUE);
    advance(m.ts());
    return m;
  }

  private void advance(Instant ts) {
    if (lastSeen == null || ts.isAfter(lastSeen)) {
      lastSeen = ts;
    }
  }

  private void checkRoom(ChatMessage m) {
    if (!rid.equals(m.rid())) {
      throw new IllegalArgumentException("message of room " + m.rid() + " offered to " + rid);
    }
  }

  /** One catch-up begun by {@link #beginCatchUp()}; ended once (later ends are ignored). */
  public static final class CatchUp {
    private final RoomTimeline timeline;
    private boolean ended; // guarded as the timeline is

    private CatchUp(RoomTimeline timeline) {
      this.timeline = timeline;
    }

    /** Returns whether the catch-up was ended. */
    public boolean ended() {
      return ended;
    }
  }
}
