package dev.ddpkit.ddp.transport;

import java.net.URI;

/**
 * Opens transports. The seam between the DDP client and a socket library: the default is {@link
 * WebSocketTransportFactory} (Java-WebSocket); tests plug in an in-memory one, and another socket
 * library (OkHttp, the JDK's {@code java.net.http.WebSocket}) can be plugged in the same way.
 */
@FunctionalInterface
public interface TransportFactory {
  /**
   * Starts opening a connection and returns at once; the outcome is reported to {@code listener}
   * ({@link TransportListener#onOpen} or {@link TransportListener#onClose}). Called on the client's
   * event loop: it must not block.
   *
   * @throws Exception if the attempt cannot even start; the client counts it as a failed attempt
   */
  Transport open(URI uri, TransportListener listener) throws Exception;
}
