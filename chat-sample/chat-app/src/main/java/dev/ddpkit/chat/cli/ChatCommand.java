package dev.ddpkit.chat.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.chat.ChatClient;
import dev.ddpkit.chat.ChatClientBuilder;
import dev.ddpkit.chat.ChatListener;
import dev.ddpkit.chat.ChatMessage;
import dev.ddpkit.chat.ChatStatus;
import dev.ddpkit.chat.OutboxFullException;
import dev.ddpkit.reconnect.Backoff;
import dev.ddpkit.reconnect.cli.CommandLine;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The {@code chat} command: a terminal chat client. Each line of standard input is sent to the first
 * room, but {@code /edit ID|last TEXT} and {@code /delete ID|last}, which edit or delete one of the
 * user's messages ({@code //} sends a line that starts with {@code /}); at the end of input it waits
 * until every message, edit and deletion is acknowledged, then exits 0. With {@code --json} it
 * prints one JSON object per line for scripts and tests ({@code message}, {@code edited}, {@code
 * deleted}, {@code sent}, {@code status}, {@code error}).
 */
public final class ChatCommand {
  static final String USAGE = String.join("\n",
      "usage: chat --url ws://127.0.0.1:3000/websocket --user NAME (--password PW | --token T)",
      "            --room R [--room R2 ...] [--json] [--history N]",
      "            [--backoff rfc|full-jitter|fixed] [--base-ms N] [--max-ms N] [--stable-ms N]",
      "            [--heartbeat-ms N] [--heartbeat-timeout-ms N]",
      "A terminal chat client: shows the rooms' messages as they come, sends each line of standard",
      "input to the first room, and at the end of input waits until every one is acknowledged.",
      "  --url U                  the server's DDP WebSocket URL (default ws://127.0.0.1:3000/websocket)",
      "  --user NAME              the user to log in as (with --password)",
      "  --password PW            log in with this password (sent as its SHA-256 digest)",
      "  --token T                log in with a resume token instead",
      "  --room R                 a room to join; repeat for more (the first one receives input)",
      "  --json                   one JSON object per line instead of text (docs/chat-json.md)",
      "  --history N              messages of history shown per room on joining (default 20)",
      "  --backoff B              the reconnect curve: rfc (default), full-jitter or fixed",
      "  --base-ms N, --max-ms N  the curve's first delay and cap (rfc 1000/60000, full-jitter"
          + " 500/30000); for fixed, --base-ms is the interval (5000), capped by --max-ms",
      "  --stable-ms N            how long a connection must stay up before the attempt count"
          + " starts again (default 10000)",
      "  --heartbeat-ms N         ping after this much silence (default 25000)",
      "  --heartbeat-timeout-ms N declare the socket dead if a ping is unanswered this long"
          + " (default 15000)",
      "  --help, -h               this text",
      "Input lines starting with / are commands: /edit ID|last TEXT edits one of your messages,",
      "/delete ID|last deletes one (last: your last message this session); a line starting with //",
      "is sent as text starting with / (one / removed).",
      "Exits 0 when all input was sent and acknowledged, 1 if the client signed out or stopped,"
          + " 2 on bad arguments.");

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DateTimeFormatter CLOCK =
      DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT).withZone(ZoneId.systemDefault());

  private ChatCommand() {}

  /**
   * Runs the command.
   *
   * @return 0 when all input was sent and acknowledged, 1 if the client signed out or stopped, 2 on
   *     bad arguments
   */
  public static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
    if (Help.asked(args)) {
      out.println(USAGE);
      return 0;
    }
    Options o;
    try {
      o = Options.parse(args);
    } catch (IllegalArgumentException e) {
      err.println("chat: " + e.getMessage());
      err.println(USAGE);
      return 2;
    }
    Printer printer = o.json ? new JsonPrinter(out) : new TextPrinter(out);
    EchoWatch echoes = new EchoWatch(printer);
    ChatClient client;
    try {
      client = o.client(echoes);
    } catch (IllegalArgumentException | IllegalStateException e) {
      err.println("chat: " + e.getMessage());
      err.println(USAGE);
      return 2;
    }
    // Closed in reverse order: the client, then the wait for its shutdown, so that its last
    // status ("stopped") is printed before this returns.
    try (AwaitEnd ended = () -> client.awaitTermination(CLOSE_WAIT); client) {
      client.start();
      String room = o.rooms.get(0);
      BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      String line;
      String last = null;
      while ((line = reader.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        if (line.startsWith("/") && !line.startsWith("//")) {
          if (!command(client, room, line, last, err)) {
            return 1;
          }
          continue;
        }
        String id = send(client, room, line.startsWith("//") ? line.substring(1) : line);
        if (id == null) {
          return 1;
        }
        last = id;
        echoes.expect(id);
      }
      // End of input: make sure we were heard, then leave. Waiting a little for our own messages
      // to come back on the room stream also lets the history load finish, so a piped session
      // shows what it wrote instead of exiting on the acknowledgement.
      await(client.loggedIn());
      await(client.flush());
      echoes.awaitShown(ECHO_WAIT);
      return 0;
    } catch (IOException e) {
      err.println("chat: cannot read input: " + e.getMessage());
      return 1;
    } catch (ExecutionException e) {
      // Signed out or stopped: the listener already printed why.
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
  }

  /**
   * {@code /edit ID|last TEXT} or {@code /delete ID|last}; a malformed or unknown command is said
   * on {@code err} and skipped. Returns false if the client stopped.
   */
  private static boolean command(ChatClient client, String room, String line, String last,
      PrintStream err) throws InterruptedException, ExecutionException {
    String[] words = line.trim().split("\\s+", 3);
    String verb = words[0];
    String target = words.length > 1 ? words[1] : null;
    if ("last".equals(target)) {
      target = last;
    }
    boolean edit = verb.equals("/edit");
    if (!edit && !verb.equals("/delete")) {
      err.println("chat: unknown command " + verb + " (/edit ID|last TEXT, /delete ID|last;"
          + " // sends a line starting with /)");
      return true;
    }
    if (target == null || (edit && words.length < 3)) {
      err.println("chat: usage: " + (edit ? "/edit ID|last TEXT" : "/delete ID|last")
          + (target == null && words.length > 1 ? " (no message sent yet)" : ""));
      return true;
    }
    while (true) {
      try {
        if (edit) {
          client.edit(room, target, words[2]);
        } else {
          client.delete(room, target);
        }
        return true;
      } catch (OutboxFullException e) {
        await(client.flush());
      } catch (IllegalStateException e) {
        return false;
      }
    }
  }

  /** Waits for a closed client's shutdown; a resource so that it runs right after the close. */
  private interface AwaitEnd extends AutoCloseable {
    @Override
    void close() throws InterruptedException;
  }

  /** Sends one line, waiting for room in the outbox if it is full; its id, null if stopped. */
  private static String send(ChatClient client, String room, String text)
      throws InterruptedException, ExecutionException {
    while (true) {
      try {
        return client.sendMessage(room, text);
      } catch (OutboxFullException e) {
        await(client.flush());
      } catch (IllegalStateException e) {
        return null;
      }
    }
  }

  /** How long, at the end of input, to wait for our own messages to be shown. */
  private static final Duration ECHO_WAIT = Duration.ofSeconds(5);
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

  /** Passes events to the printer and notes which of our own messages have been shown. */
  private static final class EchoWatch implements ChatListener {
    private final Printer printer;
    private final Set<String> expected = new HashSet<>();
    /** Our messages shown before {@link #expect} was called for them (the stream can be quick). */
    private final Set<String> early = new HashSet<>();

    EchoWatch(Printer printer) {
      this.printer = printer;
    }

    synchronized void expect(String id) {
      if (!early.remove(id)) {
        expected.add(id);
      }
    }

    /** Waits until every expected message was shown, or {@code max} passed. */
    synchronized void awaitShown(Duration max) throws InterruptedException {
      long deadline = System.nanoTime() + max.toNanos();
      long left;
      while (!expected.isEmpty() && (left = deadline - System.nanoTime()) > 0) {
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }

    @Override
    public void onMessage(ChatMessage m) {
      printer.onMessage(m);
      synchronized (this) {
        if (expected.remove(m.id())) {
          if (expected.isEmpty()) {
            notifyAll();
          }
        } else if (early.size() < 10_000) {
          early.add(m.id());
        }
      }
    }

    @Override
    public void onEdited(ChatMessage m) {
      printer.onEdited(m);
    }

    @Override
    public void onDeleted(String rid, String id) {
      printer.onDeleted(rid, id);
    }

    @Override
    public void onSent(String rid, String id) {
      printer.onSent(rid, id);
    }

    @Override
    public void onStatus(ChatStatus status) {
      printer.onStatus(status);
    }

    @Override
    public void onError(String message) {
      printer.onError(message);
    }
  }

  private static void await(CompletableFuture<Void> f)
      throws InterruptedException, ExecutionException {
    f.get();
  }

  /** Parsed command line. */
  static final class Options {
    String url = "ws://127.0.0.1:3000/websocket";
    String user;
    String password;
    String token;
    final List<String> rooms = new ArrayList<>();
    boolean json;
    int history = 20;
    String backoff = "rfc";
    Long baseMs;
    Long maxMs;
    Long stableMs;
    Long heartbeatMs;
    Long heartbeatTimeoutMs;

    static Options parse(String[] args) {
      Options o = new Options();
      CommandLine c = CommandLine.of(args);
      while (c.hasNext()) {
        switch (c.next()) {
          case "--json" -> o.json = c.flag();
          case "--url" -> o.url = c.value();
          case "--user" -> o.user = c.value();
          case "--password" -> o.password = c.value();
          case "--token" -> o.token = c.value();
          case "--room" -> o.rooms.add(c.value());
          case "--history" -> o.history = c.intValue(0, 1_000);
          case "--backoff" -> o.backoff = c.value();
          case "--base-ms" -> o.baseMs = c.longValue(1, 3_600_000);
          case "--max-ms" -> o.maxMs = c.longValue(1, 3_600_000);
          case "--stable-ms" -> o.stableMs = c.longValue(0, 3_600_000);
          case "--heartbeat-ms" -> o.heartbeatMs = c.longValue(1, 3_600_000);
          case "--heartbeat-timeout-ms" -> o.heartbeatTimeoutMs = c.longValue(1, 3_600_000);
          default -> throw c.unknown();
        }
      }
      if (o.rooms.isEmpty()) {
        throw new IllegalArgumentException("--room is required");
      }
      if (o.user == null && o.password != null) {
        throw new IllegalArgumentException("--user is required with --password");
      }
      if (o.password == null && o.token == null) {
        throw new IllegalArgumentException("--password or --token is required");
      }
      if (!List.of("rfc", "full-jitter", "fixed").contains(o.backoff)) {
        throw new IllegalArgumentException("--backoff must be rfc, full-jitter or fixed: " + o.backoff);
      }
      if (o.baseMs != null && o.maxMs != null && o.baseMs > o.maxMs) {
        throw new IllegalArgumentException(
            "--base-ms must not exceed --max-ms: " + o.baseMs + " > " + o.maxMs);
      }
      return o;
    }

    Backoff backoffCurve() {
      return switch (backoff) {
        case "rfc" -> Backoff.rfc(millis(baseMs, 1_000), millis(maxMs, 60_000));
        case "full-jitter" -> Backoff.fullJitter(millis(baseMs, 500), millis(maxMs, 30_000));
        case "fixed" ->
            Backoff.fixed(Duration.ofMillis(Math.min(baseMs != null ? baseMs : 5_000, cap())));
        default -> throw new AssertionError("Unexpected backoff: " + backoff);
      };
    }

    private long cap() {
      return maxMs != null ? maxMs : Long.MAX_VALUE;
    }

    private static Duration millis(Long value, long byDefault) {
      return Duration.ofMillis(value != null ? value : byDefault);
    }

    ChatClient client(ChatListener listener) {
      ChatClientBuilder b =
          ChatClient.builder()
              .url(url)
              .rooms(rooms)
              .historyLimit(history)
              .backoff(backoffCurve())
              .listener(listener)
              .name("chat-" + (user != null ? user : "token"));
      if (user != null) {
        b.username(user);
      }
      if (password != null) {
        b.password(password);
      }
      if (token != null) {
        b.token(token);
      }
      if (stableMs != null) {
        b.stableAfter(Duration.ofMillis(stableMs));
      }
      if (heartbeatMs != null) {
        b.heartbeatInterval(Duration.ofMillis(heartbeatMs));
      }
      if (heartbeatTimeoutMs != null) {
        b.heartbeatTimeout(Duration.ofMillis(heartbeatTimeoutMs));
      }
      return b.build();
    }
  }

  /** Where the client's events go. */
  private interface Printer extends ChatListener {}

  /** One JSON object per line. */
  private static final class JsonPrinter implements Printer {
    private final PrintStream out;

    JsonPrinter(PrintStream out) {
      this.out = out;
    }

    @Override
    public void onMessage(ChatMessage m) {
      ObjectNode n = JSON.createObjectNode();
      n.put("event", "message").put("rid", m.rid()).put("id", m.id()).put("user", m.user());
      n.put("text", m.text()).put("ts", m.ts().toEpochMilli());
      if (m.edited()) {
        // Edited before this client first showed it: its latest text, once.
        n.put("editedAt", m.editedAt().toEpochMilli()).put("editedBy", m.editedBy());
      }
      print(n);
    }

    @Override
    public void onEdited(ChatMessage m) {
      ObjectNode n = JSON.createObjectNode();
      n.put("event", "edited").put("rid", m.rid()).put("id", m.id()).put("text", m.text());
      n.put("editedAt", m.editedAt().toEpochMilli()).put("editedBy", m.editedBy());
      print(n);
    }

    @Override
    public void onDeleted(String rid, String id) {
      print(JSON.createObjectNode().put("event", "deleted").put("rid", rid).put("id", id));
    }

    @Override
    public void onSent(String rid, String id) {
      print(JSON.createObjectNode().put("event", "sent").put("rid", rid).put("id", id));
    }

    @Override
    public void onStatus(ChatStatus s) {
      ObjectNode n = JSON.createObjectNode();
      n.put("event", "status").put("status", s.state().name().toLowerCase(Locale.ROOT).replace('_', '-'));
      n.put("attempt", s.attempt()).put("retryInMs", s.retryIn().toMillis());
      if (s.state() == ChatStatus.State.SYNCING) {
        n.put("roomsBehind", s.roomsBehind());
      }
      if (!s.reason().isEmpty()) {
        n.put("reason", s.reason());
      }
      print(n);
    }

    @Override
    public void onError(String message) {
      print(JSON.createObjectNode().put("event", "error").put("message", message));
    }

    private void print(ObjectNode n) {
      synchronized (out) {
        out.println(n.toString());
        out.flush();
      }
    }
  }

  /**
   * Lines for a person: "10:00:01 #general <alice> hi", an edit as the message again with
   * "(edited)", a deletion as "10:00:01 #general <alice> (deleted)", status changes as "-- ...".
   */
  private static final class TextPrinter implements Printer {
    private static final int REMEMBERED = 10_000;
    private final PrintStream out;
    /** Recent messages, to say which one a deletion removed. */
    private final java.util.Map<String, ChatMessage> recent =
        new java.util.LinkedHashMap<>() {
          private static final long serialVersionUID = 1L;

          @Override
          protected boolean removeEldestEntry(java.util.Map.Entry<String, ChatMessage> e) {
            return size() > REMEMBERED;
          }
        };

    TextPrinter(PrintStream out) {
      this.out = out;
    }

    @Override
    public void onMessage(ChatMessage m) {
      remember(m);
      print(CLOCK.format(m.ts()) + " #" + m.rid() + " <" + m.user() + "> " + m.text()
          + (m.edited() ? " (edited)" : ""));
    }

    @Override
    public void onEdited(ChatMessage m) {
      remember(m);
      print(CLOCK.format(m.ts()) + " #" + m.rid() + " <" + m.user() + "> " + m.text()
          + " (edited)");
    }

    @Override
    public void onDeleted(String rid, String id) {
      ChatMessage m;
      synchronized (recent) {
        m = recent.remove(id);
      }
      print(m == null ? "-- a message was deleted in #" + rid
          : CLOCK.format(m.ts()) + " #" + rid + " <" + m.user() + "> (deleted)");
    }

    private void remember(ChatMessage m) {
      synchronized (recent) {
        recent.put(m.id(), m);
      }
    }

    @Override
    public void onStatus(ChatStatus s) {
      print("-- " + s.text());
    }

    @Override
    public void onError(String message) {
      print("!! " + message);
    }

    private void print(String line) {
      synchronized (out) {
        out.println(line);
        out.flush();
      }
    }
  }
}
