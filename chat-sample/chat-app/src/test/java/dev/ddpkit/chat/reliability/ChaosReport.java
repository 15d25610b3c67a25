package dev.ddpkit.chat.reliability;

import dev.ddpkit.chat.demo.DeliveryLedger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What a chaos run counted, for the assertions and for the printout quoted in RELIABILITY.md.
 *
 * @param settings the run's settings
 * @param windowSeconds how long the clients wrote while faults went on
 * @param settled whether every client settled (connected, subscribed, outbox empty, all seen)
 * @param settleSeconds how long settling took after the faults stopped
 * @param ledger written, acknowledged and delivered messages
 * @param tsBackwards messages shown with a time stamp older than one shown before in the room
 * @param senderBackwards messages shown after a later message of the same sender in the room
 * @param stored messages in the server's database at the end
 * @param kills hard kills of the server
 * @param drains graceful drains of the server
 * @param blackholes proxies silenced (each for 0.3 s to 0.3 s plus 5.4 heartbeat intervals)
 * @param startRetries server starts retried because the port was not free yet
 * @param reconnects per client: DDP sessions established again after a loss
 * @param maxAttempt the highest reconnection attempt number a client showed
 * @param heartbeatTimeouts connections the clients declared dead for want of a pong
 * @param connectTimeouts dials that did not reach DDP {@code connected} in time
 * @param protocolErrors protocol errors counted by the clients
 * @param resends messages the clients queued again after a failed send
 * @param catchUps catch-ups the clients started after reconnecting
 * @param resumes reconnects whose DDP session the server resumed
 * @param serverDuplicatesIgnored re-sent messages the server recognised by id, every instance
 * @param serverRejected connections turned away by admission control, every instance
 * @param serverHeartbeatTimeouts connections the server closed for want of a pong, every instance
 * @param notConnected clients not connected at the end
 * @param notSubscribed clients whose joined rooms differ from their rooms at the end
 * @param sessions logged-in sessions on the server at the end
 * @param subscriptionsMatch whether the server's subscriptions per room equal the membership
 * @param clientErrors errors the clients reported to their listeners
 * @param chaosErrors failures of the scenario itself (a chaos action that threw)
 * @param resources the heap and thread samples and their slopes, as printed
 */
record ChaosReport(
    ChaosSettings settings,
    double windowSeconds,
    boolean settled,
    double settleSeconds,
    DeliveryLedger.Report ledger,
    long tsBackwards,
    long senderBackwards,
    long stored,
    int kills,
    int drains,
    int blackholes,
    int startRetries,
    long[] reconnects,
    int maxAttempt,
    long heartbeatTimeouts,
    long connectTimeouts,
    long protocolErrors,
    long resends,
    long catchUps,
    long resumes,
    long serverDuplicatesIgnored,
    long serverRejected,
    long serverHeartbeatTimeouts,
    int notConnected,
    int notSubscribed,
    int sessions,
    boolean subscriptionsMatch,
    List<String> clientErrors,
    List<String> chaosErrors,
    List<String> resources) {

  /** The fewest reconnects of any client. */
  long minReconnects() {
    return Arrays.stream(reconnects).min().orElse(0);
  }

  /** The most reconnects of any client. */
  long maxReconnects() {
    return Arrays.stream(reconnects).max().orElse(0);
  }

  /** The mean number of reconnects per client. */
  double avgReconnects() {
    return Arrays.stream(reconnects).average().orElse(0);
  }

  /** The printout, one count per line. */
  List<String> lines() {
    DeliveryLedger.Report l = ledger;
    List<String> out = new ArrayList<>();
    out.add("==== chaos run report ====");
    out.add(String.format("seed                      %d", settings.seed()));
    out.add(String.format("clients / rooms           %d / %d", settings.clients(), settings.rooms()));
    out.add(String.format("rate limits               %s", settings.rateLimits()
        ? "Rocket.Chat defaults" : "off"));
    out.add(String.format("chaos window              %.1f s (asked %s)", windowSeconds,
        settings.duration()));
    out.add(String.format("server restarts           %d (%d kills, %d drains; %d start retries)",
        kills + drains, kills, drains, startRetries));
    out.add(String.format("proxy blackholes          %d", blackholes));
    out.add(String.format("messages written          %d (refused, outbox full: %d)", l.written(),
        l.refused()));
    out.add(String.format("messages acknowledged     %d", l.acknowledged()));
    out.add(String.format("messages stored           %d", stored));
    out.add(String.format("deliveries expected       %d", l.expected()));
    out.add(String.format("deliveries observed       %d", l.observed()));
    out.add(String.format("  exactly once            %d", l.exactlyOnce()));
    out.add(String.format("  duplicates              %d", l.duplicates()));
    out.add(String.format("  missing                 %d", l.missing()));
    out.add(String.format("  unexpected              %d", l.unexpected()));
    out.add(String.format("  out of order            %d (time stamp back in a room: %d;"
        + " a sender's messages out of their writing order: %d)",
        tsBackwards + senderBackwards, tsBackwards, senderBackwards));
    out.add(String.format("reconnects per client     min %d / avg %.1f / max %d",
        minReconnects(), avgReconnects(), maxReconnects()));
    out.add(String.format("max attempt seen          %d", maxAttempt));
    out.add(String.format("heartbeat timeouts        %d (client side), %d (server side)",
        heartbeatTimeouts, serverHeartbeatTimeouts));
    out.add(String.format("connect timeouts          %d", connectTimeouts));
    out.add(String.format("client protocol errors    %d", protocolErrors));
    out.add(String.format("re-sends (client)         %d; duplicates ignored by server %d",
        resends, serverDuplicatesIgnored));
    out.add(String.format("catch-ups                 %d", catchUps));
    out.add(String.format("sessions resumed          %d (reconnects the server resumed: no login,"
        + " no rejoin, no catch-up; a blackhole's lost frames, a kill and a drain do not resume)",
        resumes));
    out.add(String.format("admission rejections      %d", serverRejected));
    out.add(String.format("settled                   %s in %.1f s: %d not connected,"
        + " %d not subscribed, %d sessions, subscriptions match: %s",
        settled, settleSeconds, notConnected, notSubscribed, sessions, subscriptionsMatch));
    out.add(String.format("client errors             %d%s", clientErrors.size(),
        clientErrors.isEmpty() ? "" : " e.g. " + clientErrors.get(0)));
    out.add(String.format("scenario errors           %d%s", chaosErrors.size(),
        chaosErrors.isEmpty() ? "" : " e.g. " + chaosErrors.get(0)));
    out.addAll(resources);
    out.add("==========================");
    return out;
  }
}
