package dev.ddpkit.chat.server;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.java_websocket.WebSocket;

/**
 * Every socket the server accepted and has not seen closed, upgraded or not, with when it was
 * accepted and from which address: what the upgrade deadline and the per-address cap are checked
 * against. Java-WebSocket's own list holds only upgraded connections.
 */
final class OpenSockets {
  /** When and from where one socket came. */
  private record Accepted(InetAddress address, long acceptedNanos) {}

  private final Map<WebSocket, Accepted> sockets = new ConcurrentHashMap<>();
  private final Map<InetAddress, AtomicInteger> perAddress = new ConcurrentHashMap<>();

  /** Records an accepted socket; returns how many are open from its address, itself included. */
  int add(WebSocket conn, long nowNanos) {
    InetAddress address = addressOf(conn);
    sockets.put(conn, new Accepted(address, nowNanos));
    return perAddress.computeIfAbsent(address, a -> new AtomicInteger()).incrementAndGet();
  }

  /** Forgets a socket (idempotent: only the first call for a socket counts). */
  void remove(WebSocket conn) {
    Accepted a = sockets.remove(conn);
    if (a != null) {
      perAddress.computeIfPresent(a.address(), (k, n) -> n.decrementAndGet() <= 0 ? null : n);
    }
  }

  /** Forgets the sockets that have closed. */
  void prune() {
    for (WebSocket c : sockets.keySet()) {
      if (c.isClosed()) {
        remove(c);
      }
    }
  }

  /** Sockets open now. */
  int size() {
    prune();
    return sockets.size();
  }

  /** Sockets open now from {@code address}. */
  int from(InetAddress address) {
    AtomicInteger n = perAddress.get(address);
    return n == null ? 0 : n.get();
  }

  /** Sockets still not upgraded (and not closed) that were accepted before {@code beforeNanos}. */
  List<WebSocket> notUpgradedSince(long beforeNanos) {
    List<WebSocket> late = new ArrayList<>();
    sockets.forEach((c, a) -> {
      if (a.acceptedNanos() - beforeNanos < 0 && !c.isOpen() && !c.isClosing()
          && !c.isClosed()) {
        late.add(c);
      }
    });
    return late;
  }

  /** Every socket recorded (a snapshot). */
  List<WebSocket> all() {
    return new ArrayList<>(sockets.keySet());
  }

  /** Forgets them all. */
  void clear() {
    sockets.clear();
    perAddress.clear();
  }

  static InetAddress addressOf(WebSocket conn) {
    InetSocketAddress remote = conn.getRemoteSocketAddress();
    return remote == null ? InetAddress.getLoopbackAddress() : remote.getAddress();
  }
}
