package dev.ddpkit.ddp.memory;

import dev.ddpkit.ddp.transport.Transport;
import dev.ddpkit.ddp.transport.TransportFactory;
import dev.ddpkit.ddp.transport.TransportListener;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A {@link TransportFactory} with no sockets: each {@link #open} makes a {@link ServerEnd} through
 * which a test plays the server, frame by frame.
 */
public final class InMemoryTransportFactory implements TransportFactory {
  private final List<ServerEnd> opened = new CopyOnWriteArrayList<>();

  @Override
  public Transport open(URI uri, TransportListener listener) {
    ServerEnd end = new ServerEnd(uri, listener);
    opened.add(end);
    return end.transport();
  }

  /** Returns every connection attempt so far, oldest first. */
  public List<ServerEnd> connections() {
    return List.copyOf(opened);
  }

  /** Returns how many connection attempts were made. */
  public int count() {
    return opened.size();
  }

  /** Returns the latest connection attempt. */
  public ServerEnd last() {
    if (opened.isEmpty()) {
      throw new AssertionError("the client opened no connection");
    }
    return opened.get(opened.size() - 1);
  }
}
