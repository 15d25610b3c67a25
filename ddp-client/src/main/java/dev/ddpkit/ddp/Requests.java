package dev.ddpkit.ddp;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Makes the client's calls and subscriptions from what the caller passed: the arguments checked,
 * the params encoded as EJSON, a method id (counting up) or a subscription id (random, as Meteor's)
 * given. Thread-safe: called from the caller's thread, before the request goes to the loop.
 */
final class Requests {
  private static final char[] ID_CHARS =
      "23456789ABCDEFGHJKLMNPQRSTWXYZabcdefghijkmnopqrstuvwxyz".toCharArray();

  private final EjsonParams params;
  private final AtomicLong methodIds = new AtomicLong();
  private final Random random;

  /** Draws the subscription ids from {@code random} (thread-safe, as every {@link Random}). */
  Requests(ObjectMapper mapper, Random random) {
    this.params = new EjsonParams(mapper);
    this.random = random;
  }

  /**
   * Checks a call's arguments and encodes its params; no id is taken yet.
   *
   * @throws IllegalArgumentException if the method is empty or a param cannot be encoded
   */
  ArrayNode callParams(String method, List<?> values, CallOptions options) {
    checkName("method", method);
    Objects.requireNonNull(values, "params");
    Objects.requireNonNull(options, "options");
    return params.encode(values);
  }

  /** A call with the next method id. */
  PendingCall call(String method, ArrayNode encoded, CallOptions options) {
    return new PendingCall(String.valueOf(methodIds.incrementAndGet()), method, encoded, options);
  }

  /**
   * A subscription with a random id.
   *
   * @throws IllegalArgumentException if the name is empty or a param cannot be encoded
   */
  SubscriptionImpl subscription(
      String name, List<?> values, Consumer<SubscriptionImpl> unsubscribe) {
    checkName("name", name);
    Objects.requireNonNull(values, "params");
    return new SubscriptionImpl(randomId(), name, params.encode(values), unsubscribe);
  }

  private String randomId() {
    char[] id = new char[17];
    for (int i = 0; i < id.length; i++) {
      id[i] = ID_CHARS[random.nextInt(ID_CHARS.length)];
    }
    return new String(id);
  }

  /** @throws IllegalArgumentException if {@code value} is empty */
  static void checkName(String field, String value) {
    Objects.requireNonNull(value, field);
    if (value.isEmpty()) {
      throw new IllegalArgumentException(field + " must not be empty");
    }
  }
}
