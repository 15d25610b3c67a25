package dev.ddpkit.ddp.loopback;

import static dev.ddpkit.ddp.loopback.Loopback.PATIENCE;
import static dev.ddpkit.ddp.loopback.Loopback.eventually;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.TextNode;
import dev.ddpkit.ddp.testserver.Garbage;
import dev.ddpkit.ddp.testserver.TestDdpServer;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The server sends each kind of bad frame on a real socket: the client counts a protocol error,
 * drops and redials when the stream cannot be trusted any more (in strict mode: any frame that does
 * not parse; in the tolerant default: only a frame over the size limit), keeps the connection when
 * the frame can just be ignored, and works again afterwards (a call round-trips). The client
 * accepts frames of up to 1 MiB here, so the 2 MiB frame is over its limit.
 */
@Timeout(value = 30, unit = SECONDS)
class GarbageFramesTest {
  /** Frames that leave the connection usable in strict mode: counted and ignored. */
  private static final Set<Garbage> IGNORED_WHEN_STRICT =
      EnumSet.of(Garbage.UNKNOWN_MSG, Garbage.UNKNOWN_METHOD_ID, Garbage.BINARY_FRAME);

  /** In the tolerant default, only the frame over the size limit drops the connection. */
  private static final Set<Garbage> IGNORED_WHEN_TOLERANT =
      EnumSet.complementOf(EnumSet.of(Garbage.HUGE_FRAME));

  @ParameterizedTest
  @EnumSource(Garbage.class)
  void inStrictModeABadFrameIsCountedAndTheClientWorksAfterwards(Garbage kind) throws Exception {
    badFrameIsCountedAndTheClientWorksAfterwards(kind, /* strict= */ true, IGNORED_WHEN_STRICT);
  }

  @ParameterizedTest
  @EnumSource(Garbage.class)
  void badFrameIsCountedAndTheClientWorksAfterwards(Garbage kind) throws Exception {
    badFrameIsCountedAndTheClientWorksAfterwards(kind, /* strict= */ false, IGNORED_WHEN_TOLERANT);
  }

  private static void badFrameIsCountedAndTheClientWorksAfterwards(
      Garbage kind, boolean strict, Set<Garbage> ignored) throws Exception {
    try (Loopback lb = new Loopback()) {
      TestDdpServer server = lb.server();
      server.onMethodReturn("echo", params -> params.get(0));
      Loopback.Client c =
          lb.client(server.uri(), b -> b.maxFrameBytes(1 << 20).strictProtocol(strict))
              .connected();
      int firstConnection = server.connections().get(0).id();

      server.sendGarbage(kind);

      eventually().until(() -> c.ddp.stats().protocolErrors() == 1);
      if (ignored.contains(kind)) {
        assertThat(c.ddp.stats().reconnects()).isZero();
      } else {
        eventually().until(() -> c.ddp.stats().reconnects() == 1 && c.ddp.status().connected());
      }
      assertThat(c.ddp.call("echo", "after " + kind).get(PATIENCE.toSeconds(), SECONDS))
          .isEqualTo(TextNode.valueOf("after " + kind));
      assertThat(c.ddp.stats().protocolErrors()).isEqualTo(1);
      assertThat(c.ddp.stats().reconnects()).isEqualTo(ignored.contains(kind) ? 0 : 1);
      assertThat(server.connections()).hasSize(1);
      assertThat(server.connections().get(0).id() == firstConnection)
          .as("still on the first connection")
          .isEqualTo(ignored.contains(kind));
    }
  }
}
