package dev.ddpkit.ddp.faults;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.ddpkit.ddp.faults.FaultProxy.Mode;
import dev.ddpkit.ddp.testing.LiveThreads;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link FaultProxy} against a small echo server and plain client sockets on loopback. */
@Timeout(value = 20, unit = SECONDS)
class FaultProxyTest {

  /** Long enough that a silent connection is clearly silent, short enough to keep the run fast. */
  private static final int SILENCE_MILLIS = 300;
  private static final int READ_TIMEOUT_MILLIS = 3_000;

  private final List<Socket> clients = new ArrayList<>();
  private EchoServer echo;
  private FaultProxy proxy;

  @BeforeEach
  void start() throws IOException {
    echo = new EchoServer();
    proxy = FaultProxy.forward(echo.port());
  }

  @AfterEach
  void stop() {
    clients.forEach(FaultProxy::closeQuietly);
    proxy.close();
    echo.close();
    assertThat(proxyThreads()).as("proxy threads left after close()").isEmpty();
    assertThat(proxy.internalErrors()).as("unexpected exceptions in proxy threads").isZero();
  }

  @Test
  void passForwardsBothWaysAndCountsBytes() throws IOException {
    Socket client = connect();

    roundTrip(client, "hello");
    roundTrip(client, "world!");

    assertThat(proxy.acceptedConnections()).isEqualTo(1);
    assertThat(proxy.openConnections()).isEqualTo(1);
    // Counters move just after each write returns, so the echo can arrive first: await them.
    awaitValue(proxy::bytesReadFromClients, 11);
    awaitValue(proxy::bytesWrittenToServers, 11);
    awaitValue(proxy::bytesReadFromServers, 11);
    awaitValue(proxy::bytesWrittenToClients, 11);
  }

  @Test
  void closingTheClientClosesTheProxiedConnectionThroughHalfClose() throws IOException {
    Socket client = connect();
    roundTrip(client, "hi");

    client.shutdownOutput(); // FIN -> proxy -> echo server, which closes -> FIN back to the client

    assertThat(client.getInputStream().read()).isEqualTo(-1);
    quickly().until(() -> proxy.openConnections() == 0);
    assertThat(echo.eofs.get()).isEqualTo(1);
  }

  @Test
  void blackholeKeepsTheSocketOpenDropsWhatIsSentAndPassResumes() throws IOException {
    Socket client = connect();
    roundTrip(client, "before");

    proxy.mode(Mode.BLACKHOLE);
    send(client, "lost");
    awaitValue(proxy::bytesReadFromClients, 6 + 4); // read by the proxy, and dropped

    assertReadTimesOut(client);
    assertThat(proxy.bytesWrittenToServers()).isEqualTo(6);
    assertThat(proxy.openConnections()).isEqualTo(1);
    assertThat(client.isClosed()).isFalse();

    proxy.mode(Mode.PASS);
    roundTrip(client, "after"); // same socket, and "lost" never arrives
    assertReadTimesOut(client);
  }

  @Test
  void blackholeAppliesToNewConnectionsWhichWorkOncePassIsBack() throws IOException {
    proxy.mode(Mode.BLACKHOLE);
    Socket client = connect();
    send(client, "lost");
    awaitValue(proxy::bytesReadFromClients, 4);

    assertReadTimesOut(client);

    proxy.mode(Mode.PASS);
    roundTrip(client, "found");
    assertThat(echo.accepted.get()).isEqualTo(1);
  }

  @Test
  void aFinReceivedDuringBlackholeIsHeldAndDeliveredOncePassIsBack() throws IOException {
    Socket client = connect();
    roundTrip(client, "x");
    proxy.mode(Mode.BLACKHOLE);

    client.shutdownOutput();
    assertReadTimesOut(client);
    assertThat(echo.eofs.get()).isZero();

    proxy.mode(Mode.PASS);
    assertThat(client.getInputStream().read()).isEqualTo(-1);
    quickly().until(() -> proxy.openConnections() == 0);
    assertThat(echo.eofs.get()).isEqualTo(1);
  }

  @Test
  void latencyDelaysEachDirection() throws IOException {
    Socket client = connect();
    roundTrip(client, "warm-up");
    Duration latency = Duration.ofMillis(150);
    proxy.latency(latency);

    long start = System.nanoTime();
    roundTrip(client, "slow");
    Duration elapsed = Duration.ofNanos(System.nanoTime() - start);

    assertThat(proxy.latency()).isEqualTo(latency);
    assertThat(elapsed).isGreaterThanOrEqualTo(latency.multipliedBy(2)); // once each way
    assertThat(elapsed).isLessThan(latency.multipliedBy(2).plusSeconds(2));
  }

  @Test
  void latencyPreservesOrderOfManyChunks() throws IOException {
    Socket client = connect();
    proxy.latency(Duration.ofMillis(20));
    StringBuilder sent = new StringBuilder();
    for (int i = 0; i < 200; i++) {
      String message = i + ",";
      sent.append(message);
      send(client, message);
    }

    String received = new String(client.getInputStream().readNBytes(sent.length()), US_ASCII);

    assertThat(received).isEqualTo(sent.toString());
  }

  @Test
  void loweringTheLatencyNeverLetsALaterChunkOvertake() throws IOException {
    Socket client = connect();
    proxy.latency(Duration.ofMillis(400));
    send(client, "a");
    awaitValue(proxy::bytesReadFromClients, 1); // "a" is queued, due in 400 ms

    proxy.latency(Duration.ZERO);
    send(client, "b");
    awaitValue(proxy::bytesReadFromClients, 2);

    assertThat(new String(client.getInputStream().readNBytes(2), US_ASCII)).isEqualTo("ab");
  }

  @Test
  void chunksDelayedByLatencyAreDroppedIfTheProxyGoesSilentBeforeTheyAreDue() throws IOException {
    Socket client = connect();
    Duration latency = Duration.ofMillis(500); // wide enough to switch before it is due, even on a busy CI
    proxy.latency(latency);
    send(client, "late");
    awaitValue(proxy::bytesReadFromClients, 4);
    proxy.mode(Mode.BLACKHOLE);

    client.setSoTimeout((int) latency.toMillis() + 200); // past the chunk's due time
    assertThatThrownBy(() -> client.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
    assertThat(proxy.bytesWrittenToServers()).isZero();

    proxy.mode(Mode.PASS).latency(Duration.ZERO);
    client.setSoTimeout(READ_TIMEOUT_MILLIS);
    roundTrip(client, "fresh");
  }

  @Test
  void resetSendsAnRstToBothSides() throws IOException {
    Socket client = connect();
    roundTrip(client, "x");

    assertThat(proxy.reset()).isEqualTo(1);

    // On Linux the JDK reports a received RST on read as a SocketException, not as EOF.
    assertThatThrownBy(() -> client.getInputStream().read())
        .isInstanceOf(SocketException.class)
        .hasMessageContaining("Connection reset");
    quickly().until(() -> echo.resets.get() == 1);
    assertThat(proxy.openConnections()).isZero();
    assertThat(proxy.mode()).isEqualTo(Mode.PASS);
    roundTrip(connect(), "new connections still pass");
  }

  @Test
  void cutMidFrameForwardsPartOfTheNextServerChunkThenResets() throws IOException {
    Socket client = connect();
    roundTrip(client, "x");
    awaitValue(proxy::bytesWrittenToClients, 1); // counted just after the write: await, don't read

    assertThat(proxy.cutMidFrame()).isEqualTo(1);
    byte[] frame = new byte[1000];
    client.getOutputStream().write(frame);

    int received = 0;
    InputStream in = client.getInputStream();
    byte[] buffer = new byte[4096];
    Throwable end = null;
    try {
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        received += n;
      }
    } catch (SocketException e) {
      end = e;
    }

    assertThat(received).isLessThan(frame.length);
    assertThat(end).as("how the connection ended").isNotNull().hasMessageContaining("Connection reset");
    awaitValue(proxy::bytesWrittenToClients, 1 + received);
    quickly().until(() -> proxy.openConnections() == 0);
  }

  @Test
  void refuseResetsNewConnectionsAtOnceButExistingOnesKeepForwarding() throws IOException {
    Socket existing = connect();
    roundTrip(existing, "x");
    proxy.mode(Mode.REFUSE);

    long start = System.nanoTime();
    Throwable failure = connectAndReadOnce(proxy);

    assertThat(failure).isInstanceOf(SocketException.class).hasMessageContaining("Connection reset");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
    assertThat(proxy.refusedConnections()).isEqualTo(1);
    assertThat(proxy.acceptedConnections()).isEqualTo(2);
    assertThat(echo.accepted.get()).isEqualTo(1);
    roundTrip(existing, "still here");
  }

  @Test
  void hangOnAcceptAcceptsButNeverDialsNorAnswers() throws IOException {
    Socket existing = connect();
    roundTrip(existing, "x");
    proxy.mode(Mode.HANG_ON_ACCEPT);

    Socket hung = connect();
    send(hung, "hello?");
    awaitValue(proxy::bytesReadFromClients, 1 + 6);

    assertReadTimesOut(hung);
    assertThat(proxy.openConnections()).isEqualTo(2);
    assertThat(echo.accepted.get()).as("the target is never dialed").isEqualTo(1);
    assertThat(proxy.cutMidFrame()).as("a hung connection has no server side to cut").isEqualTo(1);
    send(existing, "y");
    assertReadTimesOut(existing); // a wedged server answers nobody
  }

  @Test
  void aDialThatFailsResetsTheClient() throws IOException {
    int deadPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      deadPort = socket.getLocalPort();
    }
    try (FaultProxy toNowhere = FaultProxy.forward(deadPort)) {
      Throwable failure = connectAndReadOnce(toNowhere);

      assertThat(failure).isInstanceOf(SocketException.class).hasMessageContaining("Connection reset");
      quickly().until(() -> toNowhere.openConnections() == 0);
    }
  }

  @Test
  void closeStopsEverythingAndLeavesNoProxyThread() throws IOException {
    Socket passing = connect();
    roundTrip(passing, "x");
    proxy.latency(Duration.ofMillis(50));
    proxy.mode(Mode.HANG_ON_ACCEPT);
    Socket hung = connect();
    awaitValue(proxy::acceptedConnections, 2); // accepted (and classified) before the next switch
    proxy.mode(Mode.BLACKHOLE);
    Socket silent = connect();
    silent.shutdownOutput(); // a FIN held until PASS, so a writer waits for a mode change
    quickly().until(() -> proxy.openConnections() == 3);
    assertThat(proxyThreads()).isNotEmpty();

    proxy.close();

    quickly().until(() -> proxyThreads().isEmpty());
    assertThat(proxy.openConnections()).isZero();
    assertThatThrownBy(() -> connect()).isInstanceOf(IOException.class);
    for (Socket client : List.of(passing, hung, silent)) {
      assertThatThrownBy(() -> client.getInputStream().read()).isInstanceOf(SocketException.class);
    }
  }

  @Test
  void modeSwitchesFromManyThreadsLeaveAConsistentProxy() throws Exception {
    Socket client = connect();
    // Taken in PASS before any switch: a connection still in the backlog when a switcher sets REFUSE
    // would be reset, and the noise below would fail for a reason this test is not about.
    awaitValue(proxy::acceptedConnections, 1);
    Mode[] modes = Mode.values();
    List<Thread> switchers = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int offset = t;
      Thread switcher = new Thread(() -> {
        for (int i = 0; i < 2_000; i++) {
          proxy.mode(modes[(i + offset) % modes.length]);
        }
      }, "test-mode-switcher-" + t);
      switchers.add(switcher);
      switcher.start();
    }
    for (int i = 0; i < 100; i++) {
      send(client, "noise");
    }
    for (Thread switcher : switchers) {
      switcher.join(SECONDS.toMillis(10));
      assertThat(switcher.isAlive()).isFalse();
    }

    proxy.mode(Mode.PASS);

    assertThat(proxy.mode()).isEqualTo(Mode.PASS);
    roundTrip(connect(), "consistent");
  }

  @Test
  void builderValidatesAtTheSetterAndAtStart() {
    assertThatThrownBy(() -> FaultProxy.builder().listenPort(-1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("listenPort");
    assertThatThrownBy(() -> FaultProxy.builder().target(null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("target");
    assertThatThrownBy(() -> FaultProxy.builder().target("localhost", 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("target port");
    assertThatThrownBy(() -> FaultProxy.builder().connectTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connectTimeout");
    assertThatThrownBy(() -> FaultProxy.builder().start())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("target");
    assertThatThrownBy(() -> proxy.latency(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("latency");
    assertThatThrownBy(() -> proxy.mode(null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("mode");
  }

  // ---- helpers ----

  private Socket connect() throws IOException {
    return connect(proxy);
  }

  private Socket connect(FaultProxy target) throws IOException {
    Socket socket = new Socket();
    clients.add(socket);
    // Options first: a refused connection may be reset before a setsockopt after connect could run.
    socket.setSoTimeout(READ_TIMEOUT_MILLIS);
    socket.setTcpNoDelay(true);
    InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), target.port());
    socket.connect(address, READ_TIMEOUT_MILLIS);
    return socket;
  }

  /**
   * Dials and reads once, for a connection the proxy resets at once. The RST can beat the JDK's timed
   * connect (which then throws "Connection reset by peer") or arrive after it (the read throws
   * "Connection reset"): either is how a client sees a failed dial, so either is returned.
   */
  private Throwable connectAndReadOnce(FaultProxy target) {
    return catchThrowable(() -> connect(target).getInputStream().read());
  }

  private static void send(Socket socket, String text) throws IOException {
    socket.getOutputStream().write(text.getBytes(US_ASCII));
    socket.getOutputStream().flush();
  }

  private static void roundTrip(Socket socket, String text) throws IOException {
    send(socket, text);
    byte[] back = socket.getInputStream().readNBytes(text.length());
    assertThat(new String(back, US_ASCII)).isEqualTo(text);
  }

  /** Asserts that nothing arrives within {@link #SILENCE_MILLIS} and the socket stays usable. */
  private static void assertReadTimesOut(Socket socket) throws IOException {
    socket.setSoTimeout(SILENCE_MILLIS);
    assertThatThrownBy(() -> socket.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
    socket.setSoTimeout(READ_TIMEOUT_MILLIS);
  }

  private static void awaitValue(LongSupplier counter, long expected) {
    quickly().untilAsserted(() -> assertThat(counter.getAsLong()).isEqualTo(expected));
  }

  private static ConditionFactory quickly() {
    return await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5));
  }

  private static List<String> proxyThreads() {
    return LiveThreads.startingWith("fault-proxy-");
  }

  /** Echoes every byte; counts connections, and how each one ended (EOF or reset). */
  private static final class EchoServer implements AutoCloseable {
    final AtomicInteger accepted = new AtomicInteger();
    final AtomicInteger eofs = new AtomicInteger();
    final AtomicInteger resets = new AtomicInteger();
    private final ServerSocket server;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();

    EchoServer() throws IOException {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      startThread("echo-server-accept", this::acceptLoop);
    }

    int port() {
      return server.getLocalPort();
    }

    private void acceptLoop() {
      try {
        while (true) {
          Socket socket = server.accept();
          accepted.incrementAndGet();
          sockets.add(socket);
          startThread("echo-server-" + accepted.get(), () -> echo(socket));
        }
      } catch (IOException closed) {
        // close() closed the server socket
      }
    }

    private void echo(Socket socket) {
      byte[] buffer = new byte[8192];
      try (socket) {
        InputStream in = socket.getInputStream();
        for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
          socket.getOutputStream().write(buffer, 0, n);
        }
        eofs.incrementAndGet();
      } catch (IOException e) {
        resets.incrementAndGet();
      }
    }

    private void startThread(String name, Runnable body) {
      Thread thread = new Thread(body, name);
      thread.setDaemon(true);
      threads.add(thread);
      thread.start();
    }

    @Override
    public void close() {
      FaultProxy.closeQuietly(server);
      sockets.forEach(FaultProxy::closeQuietly);
      for (Thread thread : threads) {
        try {
          thread.join(SECONDS.toMillis(5));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }
}
