package dev.ddpkit.chat.demo;

import java.io.PrintStream;

/** The {@code demo} command (placeholder until the embedded server lands). */
public final class DemoCommand {
  private DemoCommand() {}

  /** Runs the demo; returns its exit status. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    err.println("demo: not available yet");
    return 1;
  }
}
