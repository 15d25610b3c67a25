package dev.ddpkit.chat.server;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.IntConsumer;

/**
 * {@link FatalErrorHandler#haltProcess}: one line on the error stream, then the process ends with
 * its status. Out of memory, the line built from the error may need more than the heap can give;
 * then a line made in advance is written instead (no allocation), so that a supervisor's log still
 * says why the server went. The halt comes whatever the writing did.
 */
final class ProcessHalt implements FatalErrorHandler {
  private final int status;
  private final PrintStream err;
  private final IntConsumer halt;
  private final byte[] outOfMemoryLine;
  private final byte[] otherLine;

  ProcessHalt(int status, PrintStream err, IntConsumer halt) {
    this.status = status;
    this.err = Objects.requireNonNull(err, "err");
    this.halt = Objects.requireNonNull(halt, "halt");
    this.outOfMemoryLine = fallbackLine(OutOfMemoryError.class.getName());
    this.otherLine = fallbackLine("a fatal error");
  }

  @Override
  public void onFatalError(ChatServer server, String thread, Throwable error) {
    try {
      err.println("serve: " + error + " in thread " + thread + "; exiting with status " + status
          + " so that a supervisor restarts the server");
      err.flush();
    } catch (Throwable e) {
      try {
        byte[] line = error instanceof OutOfMemoryError ? outOfMemoryLine : otherLine;
        err.write(line, 0, line.length);
        err.flush();
      } catch (Throwable ignored) {
        // not even that: exit all the same
      }
    } finally {
      halt.accept(status);
    }
  }

  private byte[] fallbackLine(String what) {
    return ("serve: " + what + "; exiting with status " + status
        + " so that a supervisor restarts the server" + System.lineSeparator())
        .getBytes(StandardCharsets.UTF_8);
  }
}
