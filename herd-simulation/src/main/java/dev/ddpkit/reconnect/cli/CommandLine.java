package dev.ddpkit.reconnect.cli;

import java.util.Arrays;
import java.util.Optional;

/**
 * Reads a command line of {@code --name value} options, one option at a time, so that every
 * command reports a missing value, an unknown option and a bad number the same way. A command
 * keeps its own {@code switch} over the names and asks this reader for the value in the type it
 * wants:
 *
 * <pre>{@code
 * CommandLine c = CommandLine.of(args);
 * while (c.hasNext()) {
 *   switch (c.next()) {
 *     case "--json" -> json = c.flag();
 *     case "--clients" -> clients = c.intValue(1, 5_000);
 *     default -> throw c.unknown();
 *   }
 * }
 * }</pre>
 *
 * <p>Every error is an {@link IllegalArgumentException} whose message names the option, for the
 * command to print above its usage. Not thread-safe: one reader per parse.
 */
public final class CommandLine {
  private final String[] args;
  private final boolean inlineValues;
  private int position;
  private String option;
  private String inlineValue;

  private CommandLine(String[] args, boolean inlineValues) {
    if (args == null) {
      throw new IllegalArgumentException("no arguments");
    }
    this.args = Arrays.copyOf(args, args.length);
    this.inlineValues = inlineValues;
  }

  /** A reader where each option's value is the argument after it: {@code --port 3000}. */
  public static CommandLine of(String... args) {
    return new CommandLine(args, /* inlineValues= */ false);
  }

  /** A reader that also accepts the value after an equals sign: {@code --port=3000}. */
  public static CommandLine withInlineValues(String... args) {
    return new CommandLine(args, /* inlineValues= */ true);
  }

  /** Skips the next argument if it is {@code word} (a command name passed along); returns this. */
  public CommandLine skip(String word) {
    if (position < args.length && args[position].equals(word)) {
      position++;
    }
    return this;
  }

  /** Whether an option is left to read. */
  public boolean hasNext() {
    return position < args.length;
  }

  /**
   * Moves to the next option and returns its name ({@code --port}, also for {@code --port=3000}
   * when inline values are accepted).
   *
   * @throws IllegalStateException if no argument is left
   */
  public String next() {
    if (!hasNext()) {
      throw new IllegalStateException("no argument left");
    }
    String arg = args[position++];
    int eq = arg.indexOf('=');
    if (inlineValues && arg.startsWith("--") && eq > 0) {
      option = arg.substring(0, eq);
      inlineValue = arg.substring(eq + 1);
    } else {
      option = arg;
      inlineValue = null;
    }
    return option;
  }

  /** The current option's value, as given; fails with "--name needs a value" if there is none. */
  public String value() {
    String name = current();
    String v = inlineValue;
    if (v == null) {
      if (position >= args.length) {
        throw new IllegalArgumentException(name + " needs a value");
      }
      v = args[position++];
    }
    inlineValue = null;
    return v;
  }

  /**
   * The current option's value if one is given, for an option that also works alone as a flag:
   * the inline value ({@code --hints=off}), or the next argument if it is one of {@code words}
   * ({@code --hints off}); otherwise nothing is consumed and the result is empty ({@code --hints
   * --json}).
   */
  public Optional<String> optionalValue(String... words) {
    current(); // fails if next() was not called
    if (inlineValue != null) {
      String v = inlineValue;
      inlineValue = null;
      return Optional.of(v);
    }
    if (position < args.length && Arrays.asList(words).contains(args[position])) {
      return Optional.of(args[position++]);
    }
    return Optional.empty();
  }

  /** The current option's value as a whole number; fails with "--name must be a number: v". */
  public long longValue() {
    String v = value();
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(current() + " must be a number: " + v);
    }
  }

  /** The current option's value as a whole number from {@code min} to {@code max}, inclusive. */
  public long longValue(long min, long max) {
    long n = longValue();
    if (n < min || n > max) {
      throw new IllegalArgumentException(current() + " must be " + range(n, min, max) + ": " + n);
    }
    return n;
  }

  /** The current option's value as any {@code int}, for a setter that checks the range itself. */
  public int intValue() {
    return intValue(Integer.MIN_VALUE, Integer.MAX_VALUE);
  }

  /** The current option's value as an {@code int} from {@code min} to {@code max}, inclusive. */
  public int intValue(int min, int max) {
    return (int) longValue(min, max);
  }

  /**
   * Returns {@code true} for an option that takes no value; with inline values accepted, {@code
   * --json=yes} fails with "--json takes no value".
   */
  public boolean flag() {
    if (inlineValue != null) {
      throw new IllegalArgumentException(current() + " takes no value");
    }
    return true;
  }

  /** The error for an option the command does not know, to throw from its {@code default}. */
  public IllegalArgumentException unknown() {
    return new IllegalArgumentException("unknown argument: " + current());
  }

  private String current() {
    if (option == null) {
      throw new IllegalStateException("next() was not called");
    }
    return option;
  }

  /** "1 or more" where the top is only the type's limit and the number is below the bottom. */
  private static String range(long n, long min, long max) {
    boolean noTop = max == Long.MAX_VALUE || max == Integer.MAX_VALUE;
    return noTop && n < min ? min + " or more" : "in " + min + ".." + max;
  }
}
