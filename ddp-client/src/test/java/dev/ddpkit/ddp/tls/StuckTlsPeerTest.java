package dev.ddpkit.ddp.tls;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ddpkit.ddp.DdpClient;
import dev.ddpkit.ddp.faults.FaultProxy;
import dev.ddpkit.ddp.testserver.ReceivedFrame;
import dev.ddpkit.ddp.testserver.TestDdpServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Named after what could break: every client's loop runs on one small shared pool (and, until
 * issue 11, with direct execution every client's timers ran on the one shared scheduler thread),
 * and closing a TLS socket whose writer is stuck on a peer that stopped reading waits for that
 * writer (the JDK's close takes the write lock to send {@code close_notify}). Done on a shared
 * thread, the heartbeat timeout of the stuck client would stop other clients' heartbeats for
 * good. The close runs on the transport's socket closer instead.
 */
// In a thread of its own: without the fix the blocked close cannot be interrupted.
@Timeout(value = 120, unit = SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StuckTlsPeerTest {
  private static final Duration HEARTBEAT = Duration.ofSeconds(1);
  /** The other client's ping timeout; an idle client pings every max(interval, timeout). */
  private static final Duration TIMEOUT = Duration.ofMillis(1500);
  /** Long enough for the stuck client's writer to block before its heartbeat gives up. */
  private static final Duration STUCK_HEARTBEAT = Duration.ofSeconds(4);

  @TempDir static Path dir;
  private static TestCertificates localhost;

  @BeforeAll
  static void certificates() throws Exception {
    localhost = TestCertificates.generate(dir, "localhost", "dns:localhost,ip:127.0.0.1");
  }

  @Test
  void aStuckTlsPeerDoesNotDelayAnotherClientsHeartbeatBeyondOneInterval() throws Exception {
    try (TlsDdpServer tls = TlsDdpServer.start(localhost.serverContext());
        FaultProxy proxy = FaultProxy.forward(tls.getPort());
        TestDdpServer plain = TestDdpServer.start()) {
      DdpClient stuck = DdpClient.builder()
          .url("wss://localhost:" + proxy.port() + "/websocket")
          .name("stuck-tls")
          .sslContext(localhost.trustingContext())
          .heartbeatInterval(STUCK_HEARTBEAT)
          .heartbeatTimeout(HEARTBEAT)
          .build();
      DdpClient other = DdpClient.builder()
          .url(plain.uri())
          .name("other")
          .heartbeatInterval(HEARTBEAT)
          .heartbeatTimeout(TIMEOUT)
          .build();
      try {
        stuck.connect();
        other.connect();
        await().atMost(30, SECONDS)
            .until(() -> stuck.status().connected() && other.status().connected());

        // The peer stops reading; the stuck client writes far more than the socket buffers hold,
        // so its writer blocks inside the TLS write, holding the lock a close needs.
        proxy.mode(FaultProxy.Mode.STALL);
        String big = "x".repeat(1 << 20);
        for (int i = 0; i < 16; i++) {
          stuck.call("echo", big);
        }
        await("the stuck client's writer blocked in a TLS write").atMost(30, SECONDS)
            .until(StuckTlsPeerTest::writerBlockedInTlsWrite);
        assertThat(stuck.status().connected()).as("not closed yet").isTrue();
        long stalledBytes = proxy.bytesReadFromClients();
        plain.drainFrames();

        // Its heartbeat times out and closes the socket, on a shared loop thread; the other
        // client's pings, on the same pool, must keep their pace throughout.
        List<Long> pings = new ArrayList<>();
        long start = System.nanoTime();
        long closedAt = 0;
        while (System.nanoTime() - start < STUCK_HEARTBEAT.plus(HEARTBEAT.multipliedBy(8)).toNanos()) {
          ReceivedFrame f = plain.pollFrame(Duration.ofMillis(20));
          if (f != null && f.msg().equals("ping")) {
            pings.add(System.nanoTime());
          }
          if (closedAt == 0 && !stuck.status().connected()) {
            closedAt = System.nanoTime();
          }
        }
        List<Long> gapsMillis = new ArrayList<>();
        long previous = start;
        for (long t : pings) {
          gapsMillis.add((t - previous) / 1_000_000);
          previous = t;
        }
        gapsMillis.add((System.nanoTime() - previous) / 1_000_000);
        // An idle client pings every max(interval, timeout): a longer gap by more than one
        // interval is a heartbeat delayed beyond one interval.
        assertThat(gapsMillis).as("gaps between the other client's pings, ms")
            .allMatch(g -> g <= TIMEOUT.plus(HEARTBEAT).toMillis());
        assertThat(closedAt).as("the stuck client's heartbeat declared its socket dead").isPositive();
        assertThat(proxy.bytesReadFromClients() - stalledBytes)
            .as("the proxy read (almost) nothing more: the writer was stuck").isLessThan(1 << 17);
        long closed = closedAt;
        assertThat(pings).as("pings after the close").anyMatch(t -> t > closed);
      } finally {
        other.close();
        stuck.close();
      }
    }
  }

  /** Whether the stuck client's write thread is inside a socket write of a TLS record. */
  private static boolean writerBlockedInTlsWrite() {
    for (var e : Thread.getAllStackTraces().entrySet()) {
      if (e.getKey().getName().equals("stuck-tls-ws-write")) {
        boolean tls = false;
        boolean socketWrite = false;
        for (StackTraceElement f : e.getValue()) {
          tls |= f.getClassName().startsWith("sun.security.ssl.SSLSocketOutputRecord");
          socketWrite |= f.getMethodName().equals("write")
              && f.getClassName().startsWith("sun.nio.ch.NioSocketImpl");
        }
        return tls && socketWrite;
      }
    }
    return false;
  }
}
