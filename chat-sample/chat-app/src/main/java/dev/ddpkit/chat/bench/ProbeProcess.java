package dev.ddpkit.chat.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** {@link BlipBench}'s side of a {@link BlipProbe} process: starts it, reads its lines. */
final class ProbeProcess implements AutoCloseable {
  /** Put after the last line; compared by identity, so no line of the probes' can be it. */
  private static final String EOF = new String("the end of the probes' output");

  private final Process process;
  private final int count;
  private final Duration timeout;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

  private ProbeProcess(Process process, int count, Duration timeout) {
    this.process = process;
    this.count = count;
    this.timeout = timeout;
    Thread reader = new Thread(this::readLines, "blip-probe-reader");
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts {@code count} probes dialing {@code url}; returns once every one is live. */
  static ProbeProcess start(String url, String token, List<String> rids, boolean resume,
      int count, Duration timeout) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb = new ProcessBuilder(java, "-Xmx256m", "-cp",
        System.getProperty("java.class.path"), BlipProbe.class.getName(), url, token,
        String.join(",", rids), resume ? "on" : "off", Integer.toString(count))
        .redirectError(ProcessBuilder.Redirect.INHERIT);
    ProbeProcess p;
    try {
      p = new ProbeProcess(pb.start(), count, timeout);
    } catch (IOException e) {
      throw new UncheckedIOException("starting the probes", e);
    }
    String first = p.next();
    if (!"READY".equals(first)) {
      p.close();
      throw new IllegalStateException("the probes did not start: " + first);
    }
    return p;
  }

  /** Drops what the probes said so far: the next lines are the coming wave's. */
  void forgetEarlierLines() {
    lines.clear();
  }

  /** Waits until every probe said it is live again; what each measured the latest time. */
  BlipBench.Probes awaitEveryProbeLive() {
    long[] afterOpen = new long[count];
    long[] roundTrip = new long[count];
    boolean[] heard = new boolean[count];
    long[] resumed = new long[count];
    long[] openToConnect = new long[count];
    long[] connectedToLive = new long[count];
    for (int heardFrom = 0; heardFrom < count; ) {
      String line = next();
      String[] f = line.split(" ");
      if (f.length != 7 || !f[0].equals("LIVE")) {
        throw new IllegalStateException("unexpected line from the probes: " + line);
      }
      int i = Integer.parseInt(f[1]);
      afterOpen[i] = Long.parseLong(f[2]);
      roundTrip[i] = Long.parseLong(f[3]);
      resumed[i] = Long.parseLong(f[4]);
      openToConnect[i] = Long.parseLong(f[5]);
      connectedToLive[i] = Long.parseLong(f[6]);
      if (!heard[i]) {
        heard[i] = true;
        heardFrom++;
      }
    }
    long resumedCount = 0;
    for (long r : resumed) {
      resumedCount += r;
    }
    return new BlipBench.Probes(count, afterOpen, roundTrip, resumedCount, openToConnect,
        connectedToLive);
  }

  private String next() {
    try {
      String line = lines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (line == null) {
        throw new IllegalStateException("the probes said nothing within " + timeout);
      }
      if (line == EOF) { // identity: see EOF
        throw new IllegalStateException("the probes' process ended, status "
            + (process.isAlive() ? "unknown" : process.exitValue()));
      }
      return line;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for the probes", e);
    }
  }

  private void readLines() {
    try (BufferedReader r = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        // Only the protocol's lines: the probe JVM's own logging may go to stdout too (a test
        // class path's logback configuration prints its status and a console appender there).
        if (line.equals("READY") || line.startsWith("LIVE ")) {
          lines.add(line);
        }
      }
    } catch (IOException e) {
      // the process is gone: said below
    }
    lines.add(EOF);
  }

  /** Ends the probes: their stdin closed, then the process ended if it lingers. */
  @Override
  public void close() {
    try {
      process.getOutputStream().close();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (IOException e) {
      process.destroyForcibly();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
