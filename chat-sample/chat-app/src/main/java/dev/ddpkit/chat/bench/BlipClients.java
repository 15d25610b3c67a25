package dev.ddpkit.chat.bench;

import dev.ddpkit.chat.ChatClient;
import dev.ddpkit.chat.ChatListener;
import dev.ddpkit.chat.ChatMessage;
import dev.ddpkit.chat.ChatStatus;
import dev.ddpkit.ddp.transport.Transport;
import dev.ddpkit.ddp.transport.TransportFactory;
import dev.ddpkit.ddp.transport.TransportListener;
import dev.ddpkit.ddp.transport.WebSocketTransportFactory;
import dev.ddpkit.reconnect.Backoff;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntConsumer;

/**
 * The blip's {@link ChatClient}s, as {@link BlipBench} runs them in its JVM and {@link BlipProbe}
 * in a process of its own, and when each reached each point of its latest connection
 * ({@link System#nanoTime} of their JVM): its socket open, its first frame sent (the DDP {@code
 * connect}), the DDP {@code connected} received, and its status {@code CONNECTED} (live and
 * caught up). The round trip a client must wait for in any case is from its {@code connect} to
 * the {@code connected}; a resumed session needs nothing more.
 */
final class BlipClients {
  /** Every client's socket's {@code onOpen}. */
  final AtomicLongArray opened;
  /** Its first frame sent on that socket: the DDP {@code connect}. */
  final AtomicLongArray connectSent;
  /** The DDP {@code connected} received on that socket. */
  final AtomicLongArray connected;
  /** Its status {@code CONNECTED}; 0 while not live since {@link #clearLive}. */
  final AtomicLongArray live;
  /** Messages written during a gap ({@code gap-} ids) it was shown. */
  final AtomicLongArray seen;
  /** Whether its latest status {@code CONNECTED} came on a resumed session (1) or not (0). */
  final AtomicLongArray resumed;
  private final IntConsumer onLive;

  /**
   * @param n the number of clients
   * @param onLive told (on the client's thread) the index of a client that became live
   */
  BlipClients(int n, IntConsumer onLive) {
    opened = new AtomicLongArray(n);
    connectSent = new AtomicLongArray(n);
    connected = new AtomicLongArray(n);
    live = new AtomicLongArray(n);
    seen = new AtomicLongArray(n);
    resumed = new AtomicLongArray(n);
    this.onLive = onLive;
  }

  /** Starts client {@code i}: by token, in {@code rids}, fixed backoff 250 ms, history none. */
  ChatClient start(int i, String url, String token, List<String> rids, boolean resume,
      String name) {
    TransportFactory sockets = new WebSocketTransportFactory(null,
        WebSocketTransportFactory.DEFAULT_MAX_FRAME_BYTES, Duration.ofSeconds(10), name);
    TransportFactory timed = (URI uri, TransportListener l) -> {
      boolean[] sentOnThisSocket = {false};
      Transport t = sockets.open(uri, new TransportListener() {
        @Override
        public void onOpen() {
          opened.set(i, System.nanoTime());
          l.onOpen();
        }

        @Override
        public void onMessage(String text) {
          if (text.startsWith(CONNECTED)) {
            connected.set(i, System.nanoTime());
          }
          l.onMessage(text);
        }

        @Override
        public void onText(byte[] utf8, int offset, int length) {
          if (startsWith(utf8, offset, length, CONNECTED_BYTES)) {
            connected.set(i, System.nanoTime());
          }
          l.onText(utf8, offset, length);
        }

        @Override
        public void onClose(int code, String reason, boolean remote) {
          l.onClose(code, reason, remote);
        }

        @Override
        public void onError(Throwable error) {
          l.onError(error);
        }
      });
      return new Transport() {
        @Override
        public void send(String text) {
          // The first is connect, sent by the read thread at the open; the loop's sends follow it.
          if (!sentOnThisSocket[0]) {
            sentOnThisSocket[0] = true;
            connectSent.set(i, System.nanoTime());
          }
          t.send(text);
        }

        @Override
        public void close(int code, String reason) {
          t.close(code, reason);
        }

        @Override
        public boolean awaitTermination(Duration timeout) throws InterruptedException {
          return t.awaitTermination(timeout);
        }
      };
    };
    ChatListener listener = new ChatListener() {
      @Override
      public void onMessage(ChatMessage m) {
        if (m.id().startsWith("gap-")) {
          seen.incrementAndGet(i);
        }
      }

      @Override
      public void onStatus(ChatStatus status) {
        if (status.state() == ChatStatus.State.WAITING
            || status.state() == ChatStatus.State.CONNECTING) {
          live.set(i, 0); // its connection is gone: the next CONNECTED is a reconnect's
        } else if (status.state() == ChatStatus.State.CONNECTED && live.get(i) == 0) {
          resumed.set(i, status.resumed() ? 1 : 0);
          live.set(i, System.nanoTime());
          onLive.accept(i);
        }
      }
    };
    ChatClient c = ChatClient.builder().url(url).token(token).rooms(rids).historyLimit(0)
        .backoff(Backoff.fixed(Duration.ofMillis(250))).stableAfter(Duration.ofSeconds(1))
        .sessionResumption(resume).transportFactory(timed).listener(listener)
        .name(name).build();
    c.start();
    return c;
  }

  /** Whether clients {@code [0, n)} are live. */
  boolean allLive(int n) {
    for (int i = 0; i < n; i++) {
      if (live.get(i) == 0) {
        return false;
      }
    }
    return true;
  }

  /** Marks every client not live, before a blip. */
  void clearLive() {
    for (int i = 0; i < live.length(); i++) {
      live.set(i, 0);
    }
  }

  /** Client {@code i}'s time from its socket's open to live, in µs. */
  long afterOpenMicros(int i) {
    return (live.get(i) - opened.get(i)) / 1_000;
  }

  /** Client {@code i}'s DDP round trip on its latest socket ({@code connect} to {@code connected}), µs. */
  long roundTripMicros(int i) {
    return (connected.get(i) - connectSent.get(i)) / 1_000;
  }

  /** Client {@code i}'s time from its socket's open to its {@code connect} sent, in µs. */
  long openToConnectMicros(int i) {
    return (connectSent.get(i) - opened.get(i)) / 1_000;
  }

  /** Client {@code i}'s time from the {@code connected} received to live, in µs. */
  long connectedToLiveMicros(int i) {
    return (live.get(i) - connected.get(i)) / 1_000;
  }

  /** Messages of a gap shown, over every client. */
  long seenTotal() {
    long n = 0;
    for (int i = 0; i < seen.length(); i++) {
      n += seen.get(i);
    }
    return n;
  }

  /** The {@code q} quantile of {@code v}, sorted in place; 0 for none. */
  static long quantile(long[] v, double q) {
    if (v.length == 0) {
      return 0;
    }
    Arrays.sort(v);
    return v[(int) Math.min(v.length - 1, Math.floor(q * v.length))];
  }

  private static final String CONNECTED = "{\"msg\":\"connected\"";
  private static final byte[] CONNECTED_BYTES = CONNECTED.getBytes(StandardCharsets.US_ASCII);

  private static boolean startsWith(byte[] b, int offset, int length, byte[] prefix) {
    if (length < prefix.length) {
      return false;
    }
    for (int k = 0; k < prefix.length; k++) {
      if (b[offset + k] != prefix[k]) {
        return false;
      }
    }
    return true;
  }
}
