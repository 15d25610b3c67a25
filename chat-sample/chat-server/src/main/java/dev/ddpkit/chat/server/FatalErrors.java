package dev.ddpkit.chat.server;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where every thread of one server reports an {@link Error} it met: the first is handed to the
 * server's {@link FatalErrorHandler}, later ones only logged. Errors are {@link VirtualMachineError}
 * (out of memory, stack overflow) and {@link LinkageError}; Java-WebSocket wraps the ones it
 * catches in its worker threads in an {@code Exception}, so causes are looked at as well.
 */
final class FatalErrors {
  private static final Logger log = LoggerFactory.getLogger(FatalErrors.class);

  private final ChatServer server;
  private final FatalErrorHandler handler;
  /**
   * Guarded by {@code this}. Not an {@code AtomicBoolean}: its compare-and-set goes through a
   * {@code VarHandle} whose first call in a process links method handles on the heap, so the first
   * report of an {@code OutOfMemoryError} threw one again and reached no handler (serve then
   * lingered, serving nobody, instead of exiting 70). A monitor needs no heap.
   */
  private boolean reported;

  FatalErrors(ChatServer server, FatalErrorHandler handler) {
    this.server = server;
    this.handler = handler;
  }

  /** The fatal error {@code t} is or wraps, or {@code null} if there is none. */
  static Throwable fatalIn(Throwable t) {
    for (int i = 0; t != null && i < 5; i++, t = t.getCause()) {
      if (t instanceof VirtualMachineError || t instanceof LinkageError) {
        return t;
      }
    }
    return null;
  }

  /** Reports {@code t} if it is or wraps a fatal error; returns whether it did. */
  boolean reportIfFatal(Throwable t) {
    Throwable fatal = fatalIn(t);
    if (fatal == null) {
      return false;
    }
    String thread = Thread.currentThread().getName();
    try {
      log.error("fatal error in thread {}: {}", thread, fatal.toString());
    } catch (Throwable ignored) {
      // the log may need the memory that ran out
    }
    if (claimReport()) {
      try {
        handler.onFatalError(server, thread, fatal);
      } catch (Throwable e) {
        // The handler met the error too (say it needed memory to start its thread): the next
        // report tries again, as threads that die may have freed what it needs.
        unclaimReport();
        throw e;
      }
    }
    return true;
  }

  /** Whether this is the first report; allocates nothing, so that it works out of memory. */
  private synchronized boolean claimReport() {
    if (reported) {
      return false;
    }
    reported = true;
    return true;
  }

  private synchronized void unclaimReport() {
    reported = false;
  }

  /** For threads the server starts: a fatal error that ends one is reported. */
  Thread.UncaughtExceptionHandler uncaught() {
    return (thread, error) -> {
      if (!reportIfFatal(error)) {
        log.error("thread {} ended with {}", thread.getName(), error.toString());
      }
    };
  }
}
