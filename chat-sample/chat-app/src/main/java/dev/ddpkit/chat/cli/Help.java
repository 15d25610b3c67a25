package dev.ddpkit.chat.cli;

import java.util.List;

/** The one rule every command of {@code ddpkit.jar} follows for {@code --help}. */
public final class Help {
  private Help() {}

  /**
   * Whether the arguments ask for help: {@code --help} or {@code -h} anywhere among them. The
   * command then prints what it does and every option on standard output and exits 0, whatever
   * else was given.
   */
  public static boolean asked(String[] args) {
    return List.of(args).contains("--help") || List.of(args).contains("-h");
  }
}
