package dev.ddpkit.ddp.gen;

import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * A small seeded generator of random test inputs, for property tests without a framework. Every
 * run starts from a seed that a failing assertion prints, so a failure can be replayed with {@link
 * #forEachSeed} and that one seed.
 */
public final class Gen {
  private final SplittableRandom random;

  /** Creates a generator for one case. */
  public Gen(long seed) {
    this.random = new SplittableRandom(seed);
  }

  /**
   * Runs {@code body} for {@code tries} cases with seeds derived from {@code baseSeed}. The number
   * of tries can be raised from the command line with the system property {@code gen.tries}
   * (for long runs); the base seed with {@code gen.seed}.
   */
  public static void forEachSeed(long baseSeed, int tries, SeededCase body) {
    long base = Long.getLong("gen.seed", baseSeed);
    int n = Integer.getInteger("gen.tries", tries);
    SplittableRandom seeds = new SplittableRandom(base);
    for (int i = 0; i < n; i++) {
      long seed = seeds.nextLong();
      try {
        body.run(new Gen(seed), seed);
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(
            "case " + i + " failed; replay with -Dgen.seed=" + base + " (case seed " + seed + ")", e);
      } catch (Exception e) {
        throw new AssertionError("case " + i + " threw; case seed " + seed, e);
      }
    }
  }

  /** One generated case. */
  @FunctionalInterface
  public interface SeededCase {
    /** Runs the case with its generator and seed. */
    void run(Gen gen, long seed) throws Exception;
  }

  /**
   * Like {@link #forEachSeed}, but the input is made first by {@code make} and then checked by
   * {@code check}; a failure prints the seed and the input (abbreviated), not only the seed.
   * {@code gen.tries} and {@code gen.seed} override as for {@link #forEachSeed}.
   */
  public static <T> void forAll(
      long baseSeed, int tries, Function<Gen, T> make, Check<? super T> check) {
    long base = Long.getLong("gen.seed", baseSeed);
    int n = Integer.getInteger("gen.tries", tries);
    SplittableRandom seeds = new SplittableRandom(base);
    for (int i = 0; i < n; i++) {
      long seed = seeds.nextLong();
      T input = make.apply(new Gen(seed));
      try {
        check.check(input);
      } catch (Throwable e) { // AssertionError, any exception, StackOverflowError...
        throw new AssertionError(
            "case " + i + " failed; replay with -Dgen.seed=" + base + " (case seed " + seed
                + "); input: " + abbreviate(String.valueOf(input), 2000),
            e);
      }
    }
  }

  /** A check of one generated input. */
  @FunctionalInterface
  public interface Check<T> {
    /** Throws (an assertion error or anything else) if {@code input} breaks the property. */
    void check(T input) throws Exception;
  }

  /**
   * Returns {@code s} with every character outside printable ASCII escaped as {@code \\uXXXX},
   * cut after {@code max} characters of the original with its length appended: for failure
   * messages that stay readable whatever the input holds.
   */
  public static String abbreviate(String s, int max) {
    StringBuilder sb = new StringBuilder(Math.min(s.length(), max) + 32);
    int n = Math.min(s.length(), max);
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c >= 0x20 && c < 0x7f) {
        sb.append(c);
      } else {
        sb.append(String.format("\\u%04x", (int) c));
      }
    }
    if (s.length() > max) {
      sb.append("... (").append(s.length()).append(" chars)");
    }
    return sb.toString();
  }

  /** Returns an int in {@code [0, bound)}. */
  public int nextInt(int bound) {
    return random.nextInt(bound);
  }

  /** Returns an int in {@code [from, to]}. */
  public int between(int from, int to) {
    return random.nextInt(from, to + 1);
  }

  /** Returns a long in {@code [from, to]}. */
  public long between(long from, long to) {
    return to == Long.MAX_VALUE ? random.nextLong(from, to) : random.nextLong(from, to + 1);
  }

  /** Returns any int, edge values more often than chance would. */
  public int anyInt() {
    return switch (random.nextInt(8)) {
      case 0 -> pick(List.of(0, 1, -1, 2, -2, Integer.MIN_VALUE, Integer.MAX_VALUE));
      case 1 -> random.nextInt(-1000, 1001);
      default -> random.nextInt();
    };
  }

  /** Returns any long, edge values more often than chance would. */
  public long anyLong() {
    return switch (random.nextInt(8)) {
      case 0 -> pick(List.of(0L, 1L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, 1L << 53, -(1L << 53)));
      default -> random.nextLong();
    };
  }

  /** Returns any double, special values more often than chance would. */
  public double anyDouble() {
    return switch (random.nextInt(8)) {
      case 0 ->
          pick(
              List.of(
                  0.0, -0.0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
                  Double.MIN_VALUE, Double.MAX_VALUE));
      case 1 -> random.nextDouble();
      default -> Double.longBitsToDouble(random.nextLong());
    };
  }

  /** Returns any finite double (no NaN, no infinity), edge values more often than chance would. */
  public double anyFiniteDouble() {
    return switch (random.nextInt(8)) {
      case 0 ->
          pick(
              List.of(
                  0.0, -0.0, 0.01, -0.01, Double.MIN_VALUE, -Double.MIN_VALUE, Double.MAX_VALUE,
                  -Double.MAX_VALUE));
      case 1 -> Math.round(random.nextDouble(-1e6, 1e6) * 100) / 100.0;
      default -> {
        double d = Double.longBitsToDouble(random.nextLong());
        yield Double.isFinite(d) ? d : random.nextDouble();
      }
    };
  }

  /** Returns true with probability {@code p}. */
  public boolean chance(double p) {
    return random.nextDouble() < p;
  }

  /** Returns one of {@code options}. */
  public <T> T pick(List<T> options) {
    return options.get(random.nextInt(options.size()));
  }

  /** Returns {@code count} bytes. */
  public byte[] bytes(int count) {
    byte[] b = new byte[count];
    random.nextBytes(b);
    return b;
  }

  /** Returns a string of up to {@code maxLength} characters taken from {@code alphabet}. */
  public String string(String alphabet, int maxLength) {
    int n = random.nextInt(maxLength + 1);
    StringBuilder sb = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return sb.toString();
  }

  /** Returns a string of up to {@code maxLength} arbitrary UTF-16 units (lone surrogates included). */
  public String anyString(int maxLength) {
    int n = random.nextInt(maxLength + 1);
    StringBuilder sb = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      sb.append((char) random.nextInt(0x10000));
    }
    return sb.toString();
  }

  /**
   * Returns a string of up to {@code maxLength} UTF-16 units of any kind: printable ASCII most
   * often, control characters, any BMP unit (lone surrogates and noncharacters included) and
   * supplementary characters as surrogate pairs.
   */
  public String unicode(int maxLength) {
    return unicode(0, maxLength);
  }

  /** Returns a string of {@code minLength} to {@code maxLength} UTF-16 units, as {@link #unicode(int)}. */
  public String unicode(int minLength, int maxLength) {
    int n = between(minLength, maxLength);
    StringBuilder sb = new StringBuilder(n);
    while (sb.length() < n) {
      switch (random.nextInt(8)) {
        case 0, 1, 2, 3 -> sb.append((char) random.nextInt(0x20, 0x7f));
        case 4 -> sb.append((char) (random.nextInt(33) == 32 ? 0x7f : random.nextInt(0x20)));
        case 5 -> sb.append((char) random.nextInt(0x80, 0x800));
        case 6 -> sb.append((char) random.nextInt(0x10000));
        default -> {
          if (n - sb.length() >= 2) {
            sb.appendCodePoint(random.nextInt(0x10000, 0x110000));
          } else {
            sb.append((char) random.nextInt(0x10000));
          }
        }
      }
    }
    return sb.toString();
  }

  /** Returns a list of {@code minSize} to {@code maxSize} elements made by {@code element}. */
  public <T> List<T> listOf(int minSize, int maxSize, Function<Gen, T> element) {
    int n = between(minSize, maxSize);
    java.util.ArrayList<T> out = new java.util.ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(element.apply(this));
    }
    return out;
  }

  /** Returns null with probability {@code p}, else what {@code make} makes. */
  public <T> T orNull(double p, Function<Gen, T> make) {
    return chance(p) ? null : make.apply(this);
  }

  /** Picks one of the choices, all equally likely, and returns what it makes. */
  @SafeVarargs
  public final <T> T oneOf(Function<Gen, T>... choices) {
    return choices[random.nextInt(choices.length)].apply(this);
  }

  /** Returns a list of up to {@code maxSize} elements made by {@code element}. */
  public <T> List<T> listOf(int maxSize, Function<Gen, T> element) {
    int n = random.nextInt(maxSize + 1);
    java.util.ArrayList<T> out = new java.util.ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(element.apply(this));
    }
    return out;
  }

  /** Picks one of the weighted choices and returns what it makes. */
  @SafeVarargs
  public final <T> T frequency(Weighted<T>... choices) {
    int total = 0;
    for (Weighted<T> c : choices) {
      total += c.weight();
    }
    int r = random.nextInt(total);
    for (Weighted<T> c : choices) {
      r -= c.weight();
      if (r < 0) {
        return c.make().apply(this);
      }
    }
    throw new AssertionError("unreachable");
  }

  /** A weighted choice for {@link #frequency}. */
  public record Weighted<T>(int weight, Function<Gen, T> make) {}

  /** Shorthand for a weighted choice. */
  public static <T> Weighted<T> weight(int weight, Function<Gen, T> make) {
    return new Weighted<>(weight, make);
  }
}
