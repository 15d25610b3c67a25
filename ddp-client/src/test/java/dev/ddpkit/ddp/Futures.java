package dev.ddpkit.ddp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** Assertions on futures that must already be complete (the harness runs everything inline). */
final class Futures {
  private Futures() {}

  /** Asserts {@code f} failed with a {@code type}, and returns it. */
  static <T extends Throwable> T failure(CompletableFuture<?> f, Class<T> type) {
    assertThat(f).as("future").isCompletedExceptionally();
    Throwable t = f.handle((v, e) -> e).join();
    if (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    assertThat(t).isInstanceOf(type);
    return type.cast(t);
  }
}
