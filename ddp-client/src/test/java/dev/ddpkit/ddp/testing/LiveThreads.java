package dev.ddpkit.ddp.testing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The names of the threads alive in this JVM, for the leak checks that end a test: after a
 * client or server is closed, none of its threads may be left. Shared by ddp-client's tests and,
 * through the test jar, chat-sample's. Each call returns a new, modifiable list (a test may remove
 * the threads it saw before it started).
 */
public final class LiveThreads {
  private LiveThreads() {}

  /** The sorted names of the live threads whose name starts with one of {@code prefixes}. */
  public static List<String> startingWith(String... prefixes) {
    return startingWith(Arrays.asList(prefixes));
  }

  /** The sorted names of the live threads whose name starts with one of {@code prefixes}. */
  public static List<String> startingWith(List<String> prefixes) {
    return matching(name -> prefixes.stream().anyMatch(name::startsWith));
  }

  /** The sorted names of the live threads whose name passes {@code filter}. */
  public static List<String> matching(Predicate<String> filter) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(filter)
        .sorted()
        .collect(Collectors.toCollection(ArrayList::new));
  }
}
