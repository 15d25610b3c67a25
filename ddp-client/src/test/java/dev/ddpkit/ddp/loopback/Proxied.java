package dev.ddpkit.ddp.loopback;

import dev.ddpkit.ddp.faults.FaultProxy;
import java.net.URI;

/** URLs through a {@link FaultProxy}. */
final class Proxied {
  private Proxied() {}

  /** The DDP URL of the server behind {@code proxy}. */
  static URI uri(FaultProxy proxy) {
    return URI.create("ws://127.0.0.1:" + proxy.port() + "/websocket");
  }
}
