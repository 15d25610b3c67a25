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
import java.util.function.Predicate;

/**
 * One room as a model, with no I/O: per message id what the user sees (text, author, {@code ts},
 * {@code editedAt}/{@code editedBy}, the server's {@code _updatedAt}), and which changes to report.
 * Not thread-safe; the {@link ChatClient} touches it on its loop only.
 *
 * <p>A frame for a new id is a message to show; for a known id with a newer {@code _updatedAt} it
 * is an edit; with an older or equal one a duplicate (dropped). A deletion removes the message and
 * leaves a tombstone: an edit or a duplicate of a deleted id never brings it back. The model keeps
 * the newest {@code maxSeenIds} messages and as many tombstones (older ones are forgotten first),
 * so memory stays bounded.
 *
 * <p>While a catch-up ({@code loadHistory}, {@code messages/get} or {@code loadMissedMessages}) is
 * outstanding, live messages and edits are held back; when the last catch-up ends, what it fetched
 * and what was held are applied together: new messages in time-stamp order, then edits in {@code
 * _updatedAt} order, each id once, at its newest version. Deletions are applied at once, held or
 * not: a deleted message must leave the screen as soon as the client knows.
 *
 * <p>Each catch-up is a {@link CatchUp} token from {@link #beginCatchUp()}, ended by {@link
 * #complete} or {@link #abort}: a second end of the same token is ignored, so a path that ends a
 * catch-up twice cannot release another one's held messages early.
 */
public final class RoomTimeline {
  /** Orders messages by time stamp, then id, so equal time stamps still have one order. */
  public static final Comparator<ChatMessage> ORDER =
      Comparator.comparing(ChatMessage::ts).thenComparing(ChatMessage::id);
  private static final Comparator<ChatMessage> CHANGE_ORDER =
      Comparator.comparing(ChatMessage::updatedAt).thenComparing(ChatMessage::id);

  private final String rid;
  private final int maxSeenIds;
  private final int maxHeld;
  // Insertion-ordered so the oldest ids are forgotten first: memory stays bounded.
  private final LinkedHashMap<String, ChatMessage> shown;
  private final LinkedHashMap<String, Boolean> deleted;
  private final Map<String, ChatMessage> held = new LinkedHashMap<>();
  private int pendingCatchUps;
  private Instant lastSeen;
  /** The newest time stamp of a message this model showed (never a join point). */
  private Instant lastShown;
  private Instant syncPoint;
  private boolean fromStart; // the room was empty when its history was loaded

  /**
   * Creates an empty timeline.
   *
   * @param rid the room id
   * @param maxSeenIds how many messages (and as many deleted ids) to remember
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
    this.shown = bounded();
    this.deleted = bounded();
  }

  private <V> LinkedHashMap<String, V> bounded() {
    return new LinkedHashMap<>() {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
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
   * Returns the sync point of a {@code messages/get} catch-up: the newest server change time
   * applied ({@code _updatedAt} of a message or an edit, {@code _deletedAt} of a deletion a
   * catch-up reported, a joined room's last message time), or the epoch if the room was empty when
   * its history was loaded; empty if neither. Only ever a server time, and advanced only by what
   * was applied, so a page that failed half-way is asked again.
   */
  public Optional<Instant> syncPoint() {
    if (syncPoint != null) {
      return Optional.of(syncPoint);
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
    advanceSync(at);
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

  /** Returns whether a message with this id is shown (not deleted, not forgotten). */
  public boolean shown(String id) {
    return shown.containsKey(id);
  }

  /** Returns whether this id was deleted (and is remembered as such). */
  public boolean deleted(String id) {
    return deleted.containsKey(id);
  }

  /** Returns the message with this id as the user sees it, if it is shown. */
  public Optional<ChatMessage> message(String id) {
    return Optional.ofNullable(shown.get(id));
  }

  /** Returns what the user sees: every message remembered, in time-stamp order. */
  public List<ChatMessage> view() {
    List<ChatMessage> out = new ArrayList<>(shown.values());
    out.sort(ORDER);
    return out;
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
   * Offers a live message or edit (from the stream). Returns what changed now: a new message or an
   * edit, if no catch-up is outstanding; nothing for a duplicate, a deleted id, or while held.
   */
  public List<RoomEvent> offer(ChatMessage message) {
    checkRoom(message);
    if (deleted.containsKey(message.id())) {
      return List.of();
    }
    ChatMessage known = shown.get(message.id());
    if (known != null && !message.updatedAt().isAfter(known.updatedAt())) {
      return List.of();
    }
    if (pendingCatchUps > 0 && (held.size() < maxHeld || held.containsKey(message.id()))) {
      hold(message);
      return List.of();
    }
    List<RoomEvent> out = new ArrayList<>(1);
    apply(message, out);
    return out;
  }

  /**
   * Offers a live message (from the stream). Returns the message if it is new and no catch-up is
   * outstanding, nothing otherwise. An edit is applied but not returned: see {@link #offer}.
   */
  public List<ChatMessage> offerLive(ChatMessage message) {
    return messagesOf(offer(message));
  }

  /**
   * A deletion: the message leaves the model (and the held ones) for good. Returns its {@link
   * RoomEvent.Kind#DELETED} event if it was shown, nothing otherwise (never shown, or deleted
   * already).
   *
   * @param deletedAt the server's {@code _deletedAt} if known (a catch-up's), else null (a live
   *     {@code deleteMessage} event carries none): it advances the sync point
   */
  public List<RoomEvent> delete(String id, Instant deletedAt) {
    Objects.requireNonNull(id, "id");
    if (deletedAt != null) {
      advanceSync(deletedAt);
    }
    held.remove(id);
    boolean known = deleted.containsKey(id);
    deleted.put(id, Boolean.TRUE);
    ChatMessage was = shown.remove(id);
    return was == null || known ? List.of() : List.of(RoomEvent.of(RoomEvent.Kind.DELETED, was));
  }

  /**
   * A bulk deletion with no ids (Rocket.Chat's {@code deleteMessageBulk} with a time range and
   * users): every shown or held message it matches is deleted. Returns the deletions, in order.
   */
  public List<RoomEvent> deleteWhere(Predicate<ChatMessage> matches) {
    List<String> ids = new ArrayList<>();
    shown.values().stream().filter(matches).forEach(m -> ids.add(m.id()));
    held.values().stream().filter(matches).forEach(m -> ids.add(m.id()));
    List<RoomEvent> out = new ArrayList<>();
    for (String id : ids) {
      out.addAll(delete(id, null));
    }
    return out;
  }

  /**
   * Ends a catch-up with what it fetched: messages and edits (any order), and the ids it reported
   * deleted with their {@code _deletedAt}. Deletions are applied at once; the rest is applied
   * with what was held, unless another catch-up is still outstanding (it is then held with the
   * rest), or this one was ended already. Returns what changed, in order.
   */
  public List<RoomEvent> complete(CatchUp catchUp, List<ChatMessage> fetched,
      Map<String, Instant> deletions) {
    if (!end(catchUp)) {
      return List.of();
    }
    List<RoomEvent> out = new ArrayList<>();
    deletions.forEach((id, at) -> out.addAll(delete(id, at)));
    for (ChatMessage m : fetched) {
      checkRoom(m);
      if (!deleted.containsKey(m.id())) {
        hold(m);
      }
    }
    out.addAll(release());
    return out;
  }

  /**
   * Ends a catch-up with what it fetched (any order). Returns the new messages to show now, in
   * order: nothing if another catch-up is still outstanding (the fetched messages are held with
   * the rest), or if this one was ended already. Edits are applied but not returned: see {@link
   * #complete(CatchUp, List, Map)}.
   */
  public List<ChatMessage> completeCatchUp(CatchUp catchUp, List<ChatMessage> fetched) {
    return messagesOf(complete(catchUp, fetched, Map.of()));
  }

  /** Ends a catch-up that failed. Returns what was held, applied now (nothing if ended already). */
  public List<RoomEvent> abort(CatchUp catchUp) {
    return end(catchUp) ? release() : List.of();
  }

  /**
   * Ends a catch-up that failed. Returns the held messages to show now, in order (nothing if this
   * catch-up was ended already).
   */
  public List<ChatMessage> abortCatchUp(CatchUp catchUp) {
    return messagesOf(abort(catchUp));
  }

  private static List<ChatMessage> messagesOf(List<RoomEvent> events) {
    List<ChatMessage> out = new ArrayList<>(events.size());
    for (RoomEvent e : events) {
      if (e.kind() == RoomEvent.Kind.MESSAGE) {
        out.add(e.message());
      }
    }
    return out;
  }

  /** Keeps the newest version of each held id. */
  private void hold(ChatMessage m) {
    held.merge(m.id(), m, (a, b) -> b.updatedAt().isAfter(a.updatedAt()) ? b : a);
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

  private List<RoomEvent> release() {
    if (pendingCatchUps > 0 || held.isEmpty()) {
      return List.of();
    }
    List<ChatMessage> fresh = new ArrayList<>();
    List<ChatMessage> changed = new ArrayList<>();
    for (ChatMessage m : held.values()) {
      (shown.containsKey(m.id()) || isLateEdit(m) ? changed : fresh).add(m);
    }
    held.clear();
    fresh.sort(ORDER);
    changed.sort(CHANGE_ORDER);
    List<RoomEvent> out = new ArrayList<>(fresh.size() + changed.size());
    fresh.forEach(m -> apply(m, out));
    changed.forEach(m -> apply(m, out));
    return out;
  }

  /**
   * An edited message this model does not hold but older than what it showed: an edit of a
   * message from before its history (or forgotten), not a new one.
   */
  private boolean isLateEdit(ChatMessage m) {
    // lastShown, not lastSeen: a join point (markJoined) may be newer than messages still held,
    // which are new to the user however they were edited since.
    return m.edited() && lastShown != null && !m.ts().isAfter(lastShown);
  }

  private void apply(ChatMessage m, List<RoomEvent> out) {
    if (deleted.containsKey(m.id())) {
      return;
    }
    ChatMessage known = shown.get(m.id());
    if (known != null) {
      if (m.updatedAt().isAfter(known.updatedAt())) {
        shown.put(m.id(), m);
        advanceSync(m.updatedAt());
        out.add(RoomEvent.of(RoomEvent.Kind.EDITED, m));
      }
      return;
    }
    boolean lateEdit = isLateEdit(m);
    shown.put(m.id(), m);
    advance(m.ts());
    if (lastShown == null || m.ts().isAfter(lastShown)) {
      lastShown = m.ts();
    }
    advanceSync(m.updatedAt());
    out.add(RoomEvent.of(lateEdit ? RoomEvent.Kind.EDITED : RoomEvent.Kind.MESSAGE, m));
  }

  private void advance(Instant ts) {
    if (lastSeen == null || ts.isAfter(lastSeen)) {
      lastSeen = ts;
    }
  }

  private void advanceSync(Instant at) {
    if (syncPoint == null || at.isAfter(syncPoint)) {
      syncPoint = at;
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
