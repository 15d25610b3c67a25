package dev.ddpkit.ddp;

import dev.ddpkit.ddp.memory.InMemoryTransportFactory;
import dev.ddpkit.ddp.memory.ServerEnd;
import dev.ddpkit.reconnect.Backoff;
import dev.ddpkit.reconnect.ReconnectPolicy;
import dev.ddpkit.reconnect.ReconnectionManager;
import dev.ddpkit.reconnect.VirtualScheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A client on virtual time and an in-memory transport, every step on the test thread: frames in,
 * frames out, no sleeping. The reconnection manager retries after a fixed 1 s.
 */
final class Harness implements AutoCloseable {
  static final String URL = "ws://localhost:3000/websocket";
  static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
  static final String CONNECT = "{'msg':'connect','version':'1','support':['1','pre2','pre1']}";

  final VirtualScheduler time = new VirtualScheduler(T0);
  /** The client's clock: {@link #time}, unless a test holds its timers while the clock runs. */
  final HeldTimersClock clock = new HeldTimersClock(time);
  final InMemoryTransportFactory net = new InMemoryTransportFactory();
  final List<DdpStatus> statuses = new CopyOnWriteArrayList<>();
  final ReconnectionManager manager;
  final DdpClient client;
  /** The end that last said {@code connected}: its count is what a reconnect offers. */
  private ServerEnd sessionEnd;

  Harness() {
    this(b -> {});
  }

  Harness(Consumer<DdpClientBuilder> config) {
    this(Backoff.fixed(Duration.ofSeconds(1)), config);
  }

  Harness(Backoff backoff, Consumer<DdpClientBuilder> config) {
    DdpClientBuilder b =
        DdpClient.builder()
            .url(URL)
            .name("test-client")
            .reconnection(
                ReconnectPolicy.builder().backoff(backoff).stableAfter(Duration.ofSeconds(10))
                    .build())
            .scheduler(clock)
            .transportFactory(net)
            .executor(Runnable::run)
            .addStatusListener(statuses::add);
    config.accept(b);
    client = b.build();
    manager = client.reconnectionManager();
  }

  /** connect(), the socket opens, the client says connect, the server says connected. */
  ServerEnd connect(String session) {
    client.connect();
    return handshake(CONNECT, session);
  }

  /** The socket of the latest attempt opens; the client must send {@code expectedConnect}. */
  ServerEnd handshake(String expectedConnect, String session) {
    ServerEnd end = net.last();
    end.open().expect(expectedConnect);
    end.send("{'msg':'connected','session':'" + session + "'}");
    sessionEnd = end;
    return end;
  }

  /** Lets the 1 s retry delay pass; returns the new attempt, not opened yet. */
  ServerEnd redial() {
    int before = net.count();
    time.advance(Duration.ofSeconds(1));
    if (net.count() != before + 1) {
      throw new AssertionError("expected one new dial, got " + (net.count() - before));
    }
    return net.last();
  }

  /**
   * The connection drops, 1 s passes, the client redials with its last session and the count of
   * frames received in it, and the server begins {@code newSession}.
   */
  ServerEnd dropAndReconnect(ServerEnd old, String oldSession, String newSession) {
    old.closeFromServer(1006, "");
    redial();
    return handshake(connectWithSession(oldSession), newSession);
  }

  /**
   * The {@code connect} asking to resume {@code session}, with the count of the frames the server
   * sent on the last connection that said {@code connected} (a new session there).
   */
  String connectWithSession(String session) {
    return connectWithSession(session, sessionEnd.sentCount());
  }

  static String connectWithSession(String session, long receivedCount) {
    return "{'msg':'connect','version':'1','support':['1','pre2','pre1'],'session':'" + session
        + "','receivedCount':" + receivedCount + "}";
  }

  /** The {@code connect} naming {@code session} without asking to resume it. */
  static String connectNamingSession(String session) {
    return "{'msg':'connect','version':'1','support':['1','pre2','pre1'],'session':'" + session
        + "'}";
  }

  @Override
  public void close() {
    client.close();
  }
}
