package dev.ddpkit.chat.bench;

import dev.ddpkit.chat.ChatClient;
import dev.ddpkit.chat.ChatListener;
import dev.ddpkit.chat.ChatStatus;
import dev.ddpkit.reconnect.Backoff;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The client of the {@link AbuseCommand}'s client-side phase, in a JVM of its own (started with
 * {@code -Xmx512m}): a {@code ChatClient} with its default frame limit dials the {@link
 * HostileServer}, meets its never-ending message, and must close, back off and log in once the
 * address is no longer hostile. Prints one {@code child:} line with what happened; exit status 0
 * if it logged in and no thread met an {@link Error}.
 */
public final class AbuseClientChild {
  private AbuseClientChild() {}

  /** {@code args[0]}: the URL to dial. */
  public static void main(String[] args) throws Exception {
    AtomicReference<Throwable> fatal = new AtomicReference<>();
    Thread.setDefaultUncaughtExceptionHandler((t, e) -> fatal.compareAndSet(null, e));
    List<String> reasons = new CopyOnWriteArrayList<>();
    ChatListener listener = new ChatListener() {
      @Override
      public void onStatus(ChatStatus status) {
        if (!status.reason().isEmpty() && !reasons.contains(status.reason())) {
          reasons.add(status.reason());
        }
      }
    };
    long start = System.nanoTime();
    boolean loggedIn;
    try (ChatClient chat = ChatClient.builder().url(args[0]).username("carol")
        .password("carol-pw").room("general").listener(listener)
        .backoff(Backoff.fullJitter(Duration.ofMillis(200), Duration.ofSeconds(2)))
        .name("abuse-child").build()) {
      chat.start();
      try {
        chat.loggedIn().get(60, TimeUnit.SECONDS);
        loggedIn = true;
      } catch (Exception e) {
        loggedIn = false;
      }
    } catch (Error e) {
      fatal.compareAndSet(null, e);
      loggedIn = false;
    }
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    memory.gc();
    long heapMiB = memory.getHeapMemoryUsage().getUsed() >> 20;
    long maxMiB = Runtime.getRuntime().maxMemory() >> 20;
    Throwable error = fatal.get();
    System.out.printf("child: logged in after the hostile connection: %s in %.1f s; statuses' reasons:"
        + " %s; Error in a thread: %s; heap after GC %d MiB of %d MiB%n", loggedIn,
        (System.nanoTime() - start) / 1e9, reasons, error == null ? "none" : error.toString(),
        heapMiB, maxMiB);
    System.exit(loggedIn && error == null ? 0 : 1);
  }
}
