package dev.ddpkit.chat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One room's catch-up in cursor pages of {@code messages/get}, for a client whose {@code
 * lastUpdate} answer would pass its frame limit ({@link CatchUps} says when): the UPDATED pages
 * from the sync point, then the DELETED ones, gathered and applied together at the end like one
 * {@code lastUpdate} answer. Each next page starts one millisecond before the last one's end
 * (Rocket.Chat's cursor is "after this time", and more changes may share the last millisecond
 * than the page held); a full page that all shares one millisecond is asked again twice as large,
 * up to {@value #MAX_PAGE}.
 */
final class CatchUpPages {
  /** Changes a page asks for. */
  static final int PAGE = 100;
  /** The most a page asks for when a whole page shares one time (Rocket.Chat's own cap). */
  static final int MAX_PAGE = 1000;

  /** The room's catch-up these pages fill. */
  final RoomTimeline.CatchUp catchUp;
  private final long since;
  private boolean deletions;
  private long next;
  private int count = PAGE;
  /** The messages of the UPDATED pages so far. */
  final List<ChatMessage> updated = new ArrayList<>();
  /** The deletions of the DELETED pages so far, by message id. */
  final Map<String, Instant> deleted = new HashMap<>();

  /** Pages for {@code catchUp}, from {@code since} (epoch millis, a server time). */
  CatchUpPages(RoomTimeline.CatchUp catchUp, long since) {
    this.catchUp = catchUp;
    this.since = since;
    this.next = since;
  }

  /** The options of the next page's {@code messages/get}. */
  Map<String, Object> request() {
    return Map.of("type", deletions ? "DELETED" : "UPDATED", "next", Long.toString(next),
        "count", count);
  }

  /** Adds a page; returns whether another page is due. */
  boolean add(JsonNode result, String rid, int[] bad) {
    JsonNode list = result == null ? null : result.get(deletions ? "deleted" : "updated");
    if (deletions) {
      deleted.putAll(MessageParser.deletions(list, bad));
    } else {
      updated.addAll(MessageParser.parseList(list, rid, bad));
    }
    JsonNode cursor = result == null ? null : result.path("cursor").get("next");
    int n = list != null && list.isArray() ? list.size() : 0;
    if (cursor != null && cursor.isTextual() && n > 0) {
      String field = deletions ? "_deletedAt" : "_updatedAt";
      long first = MessageParser.timestamp(list.get(0).get(field)).map(Instant::toEpochMilli)
          .orElse(next);
      long last = MessageParser.timestamp(list.get(n - 1).get(field)).map(Instant::toEpochMilli)
          .orElse(next);
      if (last > next) {
        if (first == last && n >= count && count < MAX_PAGE) {
          count = Math.min(2 * count, MAX_PAGE);
        } else {
          next = first == last ? last : last - 1;
        }
        return true;
      }
      // No progress (a server that does not page as Rocket.Chat does): this kind ends here.
    }
    if (!deletions) {
      deletions = true;
      next = since;
      count = PAGE;
      return true;
    }
    return false;
  }
}
