package dev.ddpkit.ddp.fuzz;

import dev.ddpkit.ddp.gen.Gen;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.BeforeTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs the fuzz properties on the seeded {@link Gen} and lets one command line scale them: a
 * property states its CI tries and how many inputs one try pushes; with {@code -Dfuzz.tries=N} it
 * runs N divided by that many tries instead (about N inputs), without it the CI tries stand.
 * ({@code -Dgen.tries}, {@code -Dgen.seed} still override as for every {@link Gen} test.)
 *
 * <p>As a JUnit extension ({@code @ExtendWith(FuzzTries.class)}) it appends one line per test to
 * {@code target/fuzz-counts.txt}: the test, its tries, the inputs it counted with {@link
 * #count(long)}, the seconds it took and its outcome.
 */
public final class FuzzTries implements BeforeTestExecutionCallback, AfterTestExecutionCallback {
  /** The system property holding the number of inputs per property for a long run. */
  public static final String PROPERTY = "fuzz.tries";

  /** Where the counts of every fuzz test run are appended (the module's build directory). */
  public static final Path REPORT = Path.of("target", "fuzz-counts.txt");

  private static final AtomicLong INPUTS = new AtomicLong();
  private static final AtomicLong TRIES = new AtomicLong();
  private static final ExtensionContext.Namespace NS =
      ExtensionContext.Namespace.create(FuzzTries.class);

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

  /**
   * Returns the tries to run: {@code ciTries}, or with {@code -Dfuzz.tries=N} N divided by {@code
   * inputsPerTry} (at least 1).
   */
  public static int tries(int ciTries, int inputsPerTry) {
    if (inputsPerTry < 1) {
      throw new IllegalArgumentException("inputsPerTry must be positive: " + inputsPerTry);
    }
    return requested()
        .map(n -> (int) Math.min(Integer.MAX_VALUE, Math.max(1, n / inputsPerTry)))
        .orElse(ciTries);
  }

  /**
   * Checks {@code check} on {@link #tries(int, int)} inputs made by {@code make} from seeds derived
   * from {@code baseSeed}; a failure names the seed and the input (see {@link Gen#forAll}).
   */
  public static <T> void forAll(long baseSeed, int ciTries, int inputsPerTry,
      Function<Gen, T> make, Gen.Check<? super T> check) {
    Gen.forAll(baseSeed, tries(ciTries, inputsPerTry), make, input -> {
      TRIES.incrementAndGet();
      check.check(input);
    });
  }

  /** Counts {@code n} inputs pushed through the code under test by the running test. */
  public static void count(long n) {
    INPUTS.addAndGet(n);
  }

  /** Returns the inputs counted so far by the running test. */
  public static long counted() {
    return INPUTS.get();
  }

  @Override
  public void beforeTestExecution(ExtensionContext context) {
    INPUTS.set(0);
    TRIES.set(0);
    context.getStore(NS).put("start", System.nanoTime());
  }

  @Override
  public void afterTestExecution(ExtensionContext context) {
    long start = context.getStore(NS).get("start", Long.class);
    double seconds = (System.nanoTime() - start) / 1e9;
    String line = String.format(Locale.ROOT, "%s.%s tries=%d inputs=%d seconds=%.1f status=%s%n",
        context.getRequiredTestClass().getSimpleName(), context.getRequiredTestMethod().getName(),
        Math.max(1, TRIES.get()), INPUTS.get(), seconds,
        context.getExecutionException().isPresent() ? "FAILED" : "SUCCESSFUL");
    try {
      Files.createDirectories(REPORT.getParent());
      Files.writeString(REPORT, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      context.publishReportEntry("fuzz-counts", line.trim() + " (not written: " + e + ")");
    }
  }
}
