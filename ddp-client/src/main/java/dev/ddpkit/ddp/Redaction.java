package dev.ddpkit.ddp;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;
import java.util.Set;

/** Keeps credentials out of logs: the params of methods that carry them are never printed. */
final class Redaction {
  private Redaction() {}

  private static final Set<String> SENSITIVE =
      Set.of("login", "registeruser", "resetpassword", "changepassword", "setuserpassword");

  /** Returns whether the params of {@code method} may carry a password or a token. */
  static boolean isSensitive(String method) {
    String m = method.toLowerCase(Locale.ROOT);
    return SENSITIVE.contains(m) || m.contains("password") || m.contains("token");
  }

  /** Returns the params as text for a DEBUG line, or {@code [redacted]}. */
  static String params(String method, JsonNode params) {
    if (isSensitive(method)) {
      return "[redacted]";
    }
    return abbreviate(params.toString(), 300);
  }

  static String abbreviate(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max - 3) + "...";
  }

  /** Returns the URI without user info, query or fragment (they may carry a token). */
  static String uri(java.net.URI uri) {
    String port = uri.getPort() == -1 ? "" : ":" + uri.getPort();
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    return uri.getScheme() + "://" + uri.getHost() + port + path;
  }
}
