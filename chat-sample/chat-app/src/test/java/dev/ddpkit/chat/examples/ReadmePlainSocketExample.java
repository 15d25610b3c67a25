package dev.ddpkit.chat.examples;

import dev.ddpkit.reconnect.Backoff;
import dev.ddpkit.reconnect.CloseCodes;
import dev.ddpkit.reconnect.ClosePolicy;
import dev.ddpkit.reconnect.ReconnectionManager;
import java.net.URI;
import java.time.Duration;
import org.java_websocket.client.WebSocketClient;
import org.java_websocket.handshake.ServerHandshake;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * README.md's example of the ReconnectionManager driving a plain Java-WebSocket client, kept here
 * so that it compiles; ReadmeSnippetsTest fails if README's copy and this one differ.
 */
final class ReadmePlainSocketExample {
  private static final Logger log = LoggerFactory.getLogger(ReadmePlainSocketExample.class);

  private ReadmePlainSocketExample() {}

  static void run(URI uri) {
    // --- README example begins ---
    ReconnectionManager manager = ReconnectionManager.builder()
        .backoff(Backoff.rfc())                 // 1 s doubling to 60 s, plus up to 50 % jitter
        .closePolicy(ClosePolicy.websocket())   // 1000/1003/1008 stop; 1006/1011/1012 retry; 1013 slowly
        .stableAfter(Duration.ofSeconds(10))    // the counter resets only after 10 s up
        .listener(s -> log.info("{} attempt {} retry in {} ms", s.state(), s.attempt(), s.delay().toMillis()))
        .build();

    manager.start(attempt -> new WebSocketClient(uri) {   // a new socket for every attempt
      @Override public void onOpen(ServerHandshake h) { attempt.opened(); }   // reports go to this attempt:
      @Override public void onClose(int code, String reason, boolean remote) {   // no-ops once a newer one exists
        attempt.closed(code < 1000 ? CloseCodes.ABNORMAL : code, reason);   // -1: it never opened
      }
      @Override public void onMessage(String text) { handle(text); }
      @Override public void onError(Exception e) { }
    }.connect());

    // the OS says the network is back: dial now instead of waiting out the timer
    manager.networkAvailable();
    // the user signs out: no more dials
    manager.stop();
    // --- README example ends ---
  }

  private static void handle(String text) {
    log.debug("received {} chars", text.length());
  }
}
