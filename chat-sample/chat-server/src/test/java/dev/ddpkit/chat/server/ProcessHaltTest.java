package dev.ddpkit.chat.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code serve}'s fatal error handler writes one line and halts with its status, and when the
 * heap cannot give even that line (the flake of {@code OutOfMemoryExitsServeTest}: status 70 and
 * an empty stderr) it writes the line made in advance, and still halts.
 */
class ProcessHaltTest {
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final List<Integer> halted = new ArrayList<>();

  @Test
  void writesTheErrorAndTheThreadThenHalts() {
    PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    new ProcessHalt(70, err, halted::add)
        .onFatalError(null, "chat-server-1-worker-0", new OutOfMemoryError("Java heap space"));
    assertThat(bytes.toString(StandardCharsets.UTF_8))
        .contains("java.lang.OutOfMemoryError: Java heap space in thread chat-server-1-worker-0")
        .contains("exiting with status 70");
    assertThat(halted).containsExactly(70);
  }

  @Test
  void outOfMemoryForItsLineItWritesTheLineMadeBeforeAndHalts() {
    PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8) {
      @Override
      public void println(String x) {
        throw new OutOfMemoryError("no room for the line");
      }
    };
    new ProcessHalt(70, err, halted::add)
        .onFatalError(null, "chat-server-1-worker-0", new OutOfMemoryError("Java heap space"));
    assertThat(bytes.toString(StandardCharsets.UTF_8))
        .isEqualTo("serve: java.lang.OutOfMemoryError; exiting with status 70 so that a supervisor"
            + " restarts the server" + System.lineSeparator());
    assertThat(halted).containsExactly(70);
  }

  @Test
  void aStreamThatFailsAltogetherStillHalts() {
    PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8) {
      @Override
      public void println(String x) {
        throw new OutOfMemoryError("no room for the line");
      }

      @Override
      public void write(byte[] buf, int off, int len) {
        throw new OutOfMemoryError("no room at all");
      }
    };
    new ProcessHalt(70, err, halted::add)
        .onFatalError(null, "timer", new StackOverflowError());
    assertThat(halted).containsExactly(70);
  }
}
