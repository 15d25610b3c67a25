package dev.ddpkit.chat;

import dev.ddpkit.ddp.transport.Transport;
import dev.ddpkit.ddp.transport.TransportFactory;
import dev.ddpkit.ddp.transport.TransportListener;
import dev.ddpkit.reconnect.Scheduler;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A transport factory that records every frame a client sends, as {@code "<ms> <frame>"} with the
 * time of its scheduler, then hands it to the transport it wraps. Two runs that send the same
 * frames at the same times record the same list.
 */
final class WireRecorder implements TransportFactory {
  private final TransportFactory inner;
  private final Scheduler time;
  private final List<String> frames = new ArrayList<>();

  WireRecorder(TransportFactory inner, Scheduler time) {
    this.inner = inner;
    this.time = time;
  }

  @Override
  public Transport open(URI uri, TransportListener listener) throws Exception {
    Transport t = inner.open(uri, listener);
    synchronized (this) {
      frames.add(at() + " dial " + uri);
    }
    return new Transport() {
      @Override
      public void send(String text) {
        synchronized (WireRecorder.this) {
          frames.add(at() + " " + text);
        }
        t.send(text);
      }

      @Override
      public void close(int code, String reason) {
        synchronized (WireRecorder.this) {
          frames.add(at() + " close " + code + " " + reason);
        }
        t.close(code, reason);
      }

      @Override
      public boolean awaitTermination(Duration timeout) throws InterruptedException {
        return t.awaitTermination(timeout);
      }
    };
  }

  /** Returns what was recorded so far. */
  synchronized List<String> frames() {
    return List.copyOf(frames);
  }

  private String at() {
    return Duration.ofNanos(time.nanoTime()).toMillis() + "ms";
  }
}
