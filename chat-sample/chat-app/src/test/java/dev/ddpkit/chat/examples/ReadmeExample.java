package dev.ddpkit.chat.examples;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ddpkit.ddp.CallOptions;
import dev.ddpkit.ddp.DdpClient;
import dev.ddpkit.ddp.PasswordDigest;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/** The 20-line example of README.md, kept here so that it compiles and runs in a test. */
final class ReadmeExample {
  private ReadmeExample() {}

  static void run(String url, Consumer<String> show) throws Exception {
    // --- README example begins ---
    AtomicReference<String> token = new AtomicReference<>();
    try (DdpClient ddp = DdpClient.builder().url(url).build()) {   // RFC backoff, DDP close profile
      // On every reconnect, log in again with the resume token before anything else is re-sent.
      ddp.addReconnectHook(c -> c.call("login", List.of(Map.of("resume", token.get())), CallOptions.WAIT));
      ddp.connect();
      JsonNode login = ddp.call("login", List.of(Map.of(
              "user", Map.of("username", "alice"),
              "password", Map.of("digest", PasswordDigest.sha256Hex("alice-pw"), "algorithm", "sha-256"))),
          CallOptions.WAIT).get(10, TimeUnit.SECONDS);
      token.set(login.get("token").asText());
      // Room messages arrive as events on a stream collection; the subscription survives reconnects.
      ddp.addStreamListener("stream-room-messages", (collection, id, fields) ->
          show.accept(fields.path("args").path(0).path("msg").asText()));
      ddp.subscribe("stream-room-messages", "general", Map.of("useCollection", false, "args", List.of()))
          .ready().get(10, TimeUnit.SECONDS);
      ddp.call("sendMessage", Map.of("_id", "readme-example-1", "rid", "general", "msg", "hello"))
          .get(10, TimeUnit.SECONDS);
    }
    // --- README example ends ---
  }
}
