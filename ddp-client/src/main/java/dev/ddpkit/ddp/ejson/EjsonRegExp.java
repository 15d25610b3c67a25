package dev.ddpkit.ddp.ejson;

import java.util.Objects;

/**
 * A JavaScript regular expression as Meteor's EJSON carries it: {@code {"$regexp": source,
 * "$flags": flags}}. Kept as text: JavaScript and Java regular expressions differ, so no {@link
 * java.util.regex.Pattern} is made on the caller's behalf.
 *
 * @param source the pattern source
 * @param flags the JavaScript flags ({@code "gi"}), possibly empty
 */
public record EjsonRegExp(String source, String flags) {
  /** Validates the components. */
  public EjsonRegExp {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(flags, "flags");
  }
}
