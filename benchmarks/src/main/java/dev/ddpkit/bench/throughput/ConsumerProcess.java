package dev.ddpkit.bench.throughput;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One consumer in a process of its own (the Java {@link JavaConsumer} or the Node script), seen
 * through its stdout line protocol: {@code READY}, then {@code REACHED} lines. It can be paused
 * and resumed (SIGSTOP / SIGCONT, by its own pid) so a backlog builds up while it is frozen.
 */
final class ConsumerProcess implements AutoCloseable {
  /** One {@code REACHED} line. Times are epoch milliseconds. */
  record Reached(long count, double atMillis, double firstMillis, double cpuMillis, long duplicates) {}

  private final String label;
  private final Process process;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final Thread reader;

  private ConsumerProcess(String label, Process process, PrintStream log) {
    this.label = label;
    this.process = process;
    this.reader = new Thread(() -> pump(log), "bench-consumer-out-" + label);
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts {@code command}; its stderr goes to this process's stderr. */
  static ConsumerProcess start(String label, List<String> command, PrintStream log)
      throws IOException {
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    return new ConsumerProcess(label, pb.start(), log);
  }

  /** Returns the label, such as {@code java ChatClient}. */
  String label() {
    return label;
  }

  private void pump(PrintStream log) {
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        if (line.startsWith("READY") || line.startsWith("REACHED")) {
          lines.add(line);
        } else {
          log.println("[" + label + "] " + line); // a log line: shown, not parsed
        }
      }
    } catch (IOException e) {
      // the process ended
    }
    lines.add("EOF");
  }

  /** Waits for {@code READY}. */
  void awaitReady(Duration timeout) throws InterruptedException {
    String line = next(timeout, "READY");
    if (!line.startsWith("READY")) {
      throw new IllegalStateException(label + ": expected READY, got " + line);
    }
  }

  /** Waits for the {@code REACHED} line of {@code count}. */
  Reached awaitReached(long count, Duration timeout) throws InterruptedException {
    String line = next(timeout, "REACHED " + count);
    String[] f = line.split(" ");
    if (f.length != 6 || !f[0].equals("REACHED") || Long.parseLong(f[1]) != count) {
      throw new IllegalStateException(label + ": expected REACHED " + count + ", got " + line);
    }
    return new Reached(count, Double.parseDouble(f[2]), Double.parseDouble(f[3]),
        Double.parseDouble(f[4]), Long.parseLong(f[5]));
  }

  private String next(Duration timeout, String what) throws InterruptedException {
    String line = lines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (line == null) {
      throw new IllegalStateException(label + ": no '" + what + "' within " + timeout);
    }
    if (line.equals("EOF")) {
      throw new IllegalStateException(
          label + ": the process ended before '" + what + "' (exit " + exitCode() + ")");
    }
    return line;
  }

  private String exitCode() {
    try {
      return process.waitFor(2, TimeUnit.SECONDS) ? String.valueOf(process.exitValue()) : "?";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "?";
    }
  }

  /** Freezes the process (SIGSTOP). */
  void pause() throws IOException, InterruptedException {
    signal("-STOP");
  }

  /** Lets it run again (SIGCONT). */
  void resume() throws IOException, InterruptedException {
    signal("-CONT");
  }

  private void signal(String sig) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", sig, Long.toString(process.pid())).start();
    if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IllegalStateException("kill " + sig + " " + process.pid() + " failed");
    }
  }

  /** Lets the process go: resumes it, closes its stdin (it exits), destroys it if it lingers. */
  @Override
  public void close() throws InterruptedException {
    try {
      resume();
    } catch (IOException | IllegalStateException e) {
      // already gone
    }
    try {
      process.getOutputStream().close();
    } catch (IOException e) {
      // already gone
    }
    if (!process.waitFor(5, TimeUnit.SECONDS)) {
      process.destroy();
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(5, TimeUnit.SECONDS);
      }
    }
    reader.join(TimeUnit.SECONDS.toMillis(5));
  }
}
