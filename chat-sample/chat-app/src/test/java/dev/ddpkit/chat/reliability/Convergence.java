package dev.ddpkit.chat.reliability;

import java.util.ArrayList;
import java.util.List;

/**
 * How the clients' views of their rooms compare with the server's at the end of a chaos run.
 *
 * @param edits edits the writers asked for
 * @param deletions deletions the writers asked for
 * @param deletionsAcknowledged of those, acknowledged by the server
 * @param viewsChecked (client, room) views compared
 * @param viewsEqual views equal to the server's
 * @param resurrected messages a view shows that the server deleted
 * @param example the first difference found, or empty
 */
record Convergence(long edits, long deletions, long deletionsAcknowledged, int viewsChecked,
    int viewsEqual, long resurrected, String example) {

  /** The printout, one count per line. */
  List<String> lines() {
    List<String> out = new ArrayList<>();
    out.add(String.format("edits / deletions asked   %d / %d (deletions acknowledged: %d)", edits,
        deletions, deletionsAcknowledged));
    out.add(String.format("views equal to the server's: %d / %d (ids, texts, edited flags)",
        viewsEqual, viewsChecked));
    out.add(String.format("deleted messages shown    %d", resurrected));
    if (!example.isEmpty()) {
      out.add("first difference          " + example);
    }
    return out;
  }
}
