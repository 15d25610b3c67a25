package dev.ddpkit.chat.bench;

import dev.ddpkit.chat.ChatClient;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A few of the blip's clients in a JVM of their own, started by {@link BlipBench}: there, the
 * 1,000 clients share one JVM's threads and event-loop pool, so a client's time from its socket's
 * open to live includes its place in the others' queue; here it is the client's own. Speaks on
 * stdout: {@code READY} once every client is live, then for every later time a client becomes
 * live {@code LIVE <index> <open to live, µs> <connect to connected, µs> <resumed 0|1> <open
 * to connect, µs> <connected to live, µs>}. Ends when
 * its stdin ends.
 *
 * <pre>java -cp ddpkit.jar dev.ddpkit.chat.bench.BlipProbe URL TOKEN ROOM,ROOM,... on|off COUNT</pre>
 */
public final class BlipProbe {
  private BlipProbe() {}

  /** Runs the probe; exit status 0 once stdin ended, 2 on bad arguments. */
  public static void main(String[] args) {
    if (args.length != 5 || !(args[3].equals("on") || args[3].equals("off"))) {
      System.err.println("usage: BlipProbe URL TOKEN ROOM,ROOM,... on|off COUNT");
      System.exit(2);
      return;
    }
    String url = args[0];
    String token = args[1];
    List<String> rids = List.of(args[2].split(","));
    boolean resume = args[3].equals("on");
    int count = Integer.parseInt(args[4]);
    PrintStream out = System.out;
    AtomicBoolean ready = new AtomicBoolean();
    BlipClients[] clients = new BlipClients[1];
    clients[0] = new BlipClients(count, i -> {
      BlipClients c = clients[0];
      if (ready.get()) {
        synchronized (out) {
          out.printf(Locale.ROOT, "LIVE %d %d %d %d %d %d%n", i, c.afterOpenMicros(i),
              c.roundTripMicros(i), c.resumed.get(i), c.openToConnectMicros(i),
              c.connectedToLiveMicros(i));
          out.flush();
        }
      } else if (c.allLive(count) && ready.compareAndSet(false, true)) {
        synchronized (out) {
          out.println("READY");
          out.flush();
        }
      }
    });
    List<ChatClient> all = new ArrayList<>();
    try {
      for (int i = 0; i < count; i++) {
        all.add(clients[0].start(i, url, token, rids, resume, "blip-probe-" + i));
      }
      try {
        while (System.in.read() >= 0) {
          // the bench sends nothing; the end of stdin means it is done
        }
      } catch (IOException e) {
        // the same: nobody to report to
      }
    } finally {
      all.forEach(ChatClient::close);
    }
    System.exit(0);
  }
}
