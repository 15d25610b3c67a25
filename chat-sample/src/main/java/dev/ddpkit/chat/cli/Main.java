package dev.ddpkit.chat.cli;

/** Entry point of the one runnable jar: {@code serve}, {@code chat}, {@code demo}, {@code herd}. */
public final class Main {
  private Main() {}

  /** Dispatches to the command named by the first argument. */
  public static void main(String[] args) throws Exception {
    System.err.println("usage: java -jar ddpkit.jar serve|chat|demo|herd [options]");
    System.exit(2);
  }
}
