package dev.ddpkit.chat.security;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random client frames for fuzzing the server, from a seeded {@link Random} (chat-sample's tests
 * have no property-testing library): DDP messages of every kind with random fields, then mutated
 * (a field removed or of the wrong type, huge numbers, deep nesting, long or odd strings,
 * duplicate keys, truncation), or plain garbage. Frames stay under the server's size limit.
 */
final class ServerFrames {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final String[] MSGS = {"connect", "ping", "pong", "method", "sub", "unsub",
      "result", "nosub", "added", "dance", ""};
  private static final String[] METHODS = {"login", "logout", "sendMessage", "loadHistory",
      "loadMissedMessages", "deleteEverything", "", "LOGIN"};
  private static final String[] ROOMS = {"general", "secret", "nope", "", "../general"};

  private ServerFrames() {}

  /** One frame, as text. */
  static String any(Random r) {
    int k = r.nextInt(10);
    if (k < 3) {
      return valid(r).toString();
    }
    if (k < 8) {
      ObjectNode f = valid(r);
      int n = 1 + r.nextInt(3);
      for (int i = 0; i < n; i++) {
        mutate(f, r);
      }
      String text = f.toString();
      return r.nextInt(8) == 0 ? textMutation(text, r) : text;
    }
    if (k < 9) {
      return r.nextBoolean() ? value(r, 3).toString() : deep(r);
    }
    return garbage(r);
  }

  /** A well-formed client message with random contents. */
  static ObjectNode valid(Random r) {
    String msg = MSGS[r.nextInt(MSGS.length)];
    ObjectNode f = F.objectNode().put("msg", msg);
    switch (msg) {
      case "connect" -> {
        f.put("version", pick(r, "1", "pre2", "pre1", "2"));
        f.putArray("support").add("1").add(pick(r, "pre2", "x"));
      }
      case "ping", "pong" -> {
        if (r.nextBoolean()) {
          f.put("id", text(r));
        }
      }
      case "method" -> {
        f.put("id", r.nextBoolean() ? "m" + r.nextInt(300) : text(r));
        String method = METHODS[r.nextInt(METHODS.length)];
        f.put("method", method);
        f.set("params", params(method, r));
        if (r.nextInt(4) == 0) {
          f.put("randomSeed", text(r));
        }
      }
      case "sub" -> {
        f.put("id", "s" + r.nextInt(50));
        f.put("name", pick(r, "stream-room-messages", "users", ""));
        ArrayNode p = f.putArray("params").add(ROOMS[r.nextInt(ROOMS.length)]);
        p.addObject().put("useCollection", false).putArray("args");
      }
      case "unsub" -> f.put("id", "s" + r.nextInt(50));
      default -> f.put("id", text(r));
    }
    return f;
  }

  private static ArrayNode params(String method, Random r) {
    ArrayNode p = F.arrayNode();
    switch (method) {
      case "login" -> {
        ObjectNode a = p.addObject();
        if (r.nextBoolean()) {
          a.put("resume", text(r));
        } else {
          a.putObject("user").put("username", pick(r, "alice", "bob", "zed", ""));
          a.putObject("password").put("digest", pick(r, ServerHostileInputTest.sha256("x"),
              "short", "")).put("algorithm", pick(r, "sha-256", "md5"));
        }
      }
      case "sendMessage" -> p.addObject().put("_id", "f" + r.nextInt(1_000_000))
          .put("rid", ROOMS[r.nextInt(ROOMS.length)]).put("msg", text(r) + "x");
      case "loadHistory" -> p.add(ROOMS[r.nextInt(ROOMS.length)]).addNull()
          .add(r.nextInt(2000) - 500).addNull();
      case "loadMissedMessages" -> {
        p.add(ROOMS[r.nextInt(ROOMS.length)]);
        p.addObject().put("$date", r.nextLong());
      }
      default -> {
        for (int i = r.nextInt(3); i > 0; i--) {
          p.add(value(r, 2));
        }
      }
    }
    return p;
  }

  private static void mutate(ObjectNode f, Random r) {
    List<String> names = new ArrayList<>();
    f.fieldNames().forEachRemaining(names::add);
    String field = names.isEmpty() ? "msg" : names.get(r.nextInt(names.size()));
    switch (r.nextInt(5)) {
      case 0 -> f.remove(field);
      case 1 -> f.set(field, odd(r));
      case 2 -> f.set(pick(r, "msg", "id", "method", "params", "name", "version", "support"),
          odd(r));
      case 3 -> {
        JsonNode params = f.get("params");
        if (params instanceof ArrayNode a && a.size() > 0) {
          JsonNode first = a.get(0);
          if (first instanceof ObjectNode o && o.size() > 0) {
            List<String> inner = new ArrayList<>();
            o.fieldNames().forEachRemaining(inner::add);
            o.set(inner.get(r.nextInt(inner.size())), odd(r));
          } else {
            a.set(0, odd(r));
          }
        } else {
          f.set("params", odd(r));
        }
      }
      default -> f.put("msg", MSGS[r.nextInt(MSGS.length)]);
    }
  }

  private static JsonNode odd(Random r) {
    return switch (r.nextInt(12)) {
      case 0 -> F.nullNode();
      case 1 -> F.numberNode(new BigInteger("9".repeat(1 + r.nextInt(900))));
      case 2 -> F.numberNode(r.nextDouble() * Double.MAX_VALUE);
      case 3 -> F.textNode("x".repeat(r.nextInt(200_000)));
      case 4 -> F.textNode("\u0000\ud83d\ude00\u202e\ud800\"\\");
      case 5 -> nested(r.nextInt(990));
      case 6 -> F.booleanNode(r.nextBoolean());
      case 7 -> F.arrayNode().add(1).add("a").addNull();
      case 8 -> F.objectNode().put("$date", "tomorrow");
      default -> value(r, 2);
    };
  }

  /** A frame nested around the parser's depth limit (1000), well formed. */
  private static String deep(Random r) {
    int depth = 990 + r.nextInt(20);
    String field = pick(r, "id", "params", "method", "x");
    return "{\"msg\":\"" + pick(r, "method", "sub", "ping", "dance") + "\",\"" + field + "\":"
        + "[".repeat(depth) + "]".repeat(depth) + "}";
  }

  private static JsonNode nested(int depth) {
    ArrayNode root = F.arrayNode();
    ArrayNode a = root;
    for (int i = 1; i < depth; i++) {
      a = a.addArray();
    }
    return root;
  }

  private static JsonNode value(Random r, int depth) {
    int k = r.nextInt(depth <= 0 ? 4 : 6);
    return switch (k) {
      case 0 -> F.textNode(text(r));
      case 1 -> F.numberNode(r.nextLong());
      case 2 -> F.booleanNode(r.nextBoolean());
      case 3 -> F.nullNode();
      case 4 -> {
        ArrayNode a = F.arrayNode();
        for (int i = r.nextInt(4); i > 0; i--) {
          a.add(value(r, depth - 1));
        }
        yield a;
      }
      default -> {
        ObjectNode o = F.objectNode();
        for (int i = r.nextInt(4); i > 0; i--) {
          o.set(text(r), value(r, depth - 1));
        }
        yield o;
      }
    };
  }

  private static String textMutation(String s, Random r) {
    int at = r.nextInt(s.length() + 1);
    return switch (r.nextInt(4)) {
      case 0 -> s.substring(0, at);
      case 1 -> s.substring(0, at) + "\"{[,:" .charAt(r.nextInt(5)) + s.substring(at);
      case 2 -> "{\"msg\":\"method\"," + s.substring(Math.min(1, s.length())); // duplicate keys
      default -> s + " trailing";
    };
  }

  private static String garbage(Random r) {
    StringBuilder sb = new StringBuilder();
    for (int i = r.nextInt(40); i > 0; i--) {
      sb.append(r.nextInt(4) == 0 ? (char) r.nextInt(0x3000) : "{}[]\":,0a\\ ".charAt(r.nextInt(11)));
    }
    return sb.toString();
  }

  private static String text(Random r) {
    int n = r.nextInt(12);
    StringBuilder sb = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      sb.append((char) (r.nextInt(3) == 0 ? 0x20 + r.nextInt(0x2fff) : 'a' + r.nextInt(26)));
    }
    return sb.toString();
  }

  @SafeVarargs
  private static <T> T pick(Random r, T... options) {
    return options[r.nextInt(options.length)];
  }
}
