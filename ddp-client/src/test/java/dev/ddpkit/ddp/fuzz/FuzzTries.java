package dev.ddpkit.ddp.fuzz;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Example;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropagationMode;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * Lets one command line scale the fuzz properties: with {@code -Dfuzz.tries=N} every property (not
 * the examples) of a class that adds this hook runs about N inputs instead of the tries its
 * annotation sets. A property whose every try pushes several inputs says how many with {@link
 * InputsPerTry}, and gets N divided by that many tries. Without the system property the
 * annotation's tries stand (the CI run). jqwik's own {@code jqwik.tries.default} would not do: it
 * only applies to properties that set no tries, and cannot tell a one-frame try from a forty-frame
 * one.
 *
 * <p>After each property it appends one line to {@code target/fuzz-counts.txt}: the property, its
 * tries, the inputs it counted with {@link #count(long)}, the seconds it took and its outcome.
 */
public final class FuzzTries implements AroundPropertyHook {
  /** The system property holding the number of inputs per property for a long run. */
  public static final String PROPERTY = "fuzz.tries";

  /** Where the counts of every property run are appended (the module's build directory). */
  public static final Path REPORT = Path.of("target", "fuzz-counts.txt");

  private static final AtomicLong INPUTS = new AtomicLong();

  /** How many inputs one try of the annotated property pushes, on average. */
  @Retention(RetentionPolicy.RUNTIME)
  @Target(ElementType.METHOD)
  public @interface InputsPerTry {
    /** The average number of inputs per try, 1 or more. */
    int value();
  }

  /** Returns the inputs asked for with {@code -Dfuzz.tries}, if any. */
  public static Optional<Long> requested() {
    String v = System.getProperty(PROPERTY);
    if (v == null || v.isBlank()) {
      return Optional.empty();
    }
    long n = Long.parseLong(v.trim());
    if (n < 1) {
      throw new IllegalArgumentException(PROPERTY + " must be positive: " + v);
    }
    return Optional.of(n);
  }

  @Override
  public PropertyExecutionResult aroundProperty(
      PropertyLifecycleContext context, PropertyExecutor property) {
    Optional<Long> inputs = requested();
    if (inputs.isPresent() && context.findAnnotation(Example.class).isEmpty()) {
      int per =
          context.findAnnotation(InputsPerTry.class).map(InputsPerTry::value).orElse(1);
      long tries = Math.max(1, inputs.get() / Math.max(1, per));
      context.attributes().setTries((int) Math.min(Integer.MAX_VALUE, tries));
    }
    INPUTS.set(0);
    long t0 = System.nanoTime();
    PropertyExecutionResult result = property.execute();
    report(context, result, (System.nanoTime() - t0) / 1e9);
    return result;
  }

  /** Counts {@code n} inputs pushed through the code under test by the running property. */
  public static void count(long n) {
    INPUTS.addAndGet(n);
  }

  private static void report(PropertyLifecycleContext context, PropertyExecutionResult result,
      double seconds) {
    String line = String.format(Locale.ROOT, "%s.%s tries=%d inputs=%d seconds=%.1f status=%s%n",
        context.containerClass().getSimpleName(), context.targetMethod().getName(),
        result.countTries(), INPUTS.get(), seconds, result.status());
    try {
      Files.createDirectories(REPORT.getParent());
      Files.writeString(REPORT, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      context.reporter().publishValue("fuzz-counts", line.trim() + " (not written: " + e + ")");
    }
  }

  @Override
  public PropagationMode propagateTo() {
    return PropagationMode.ALL_DESCENDANTS; // added on a class, it applies to its properties
  }

  @Override
  public int aroundPropertyProximity() {
    return -100; // outermost: set the tries before anything else runs
  }
}
