package dev.ddpkit.chat.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import org.java_websocket.WebSocket;
import org.java_websocket.WebSocketAdapter;
import org.java_websocket.handshake.Handshakedata;

/**
 * For the tests of the server's writes ({@link ServerConnectionTest}, {@link
 * GatheringChannelTest}): a connected pair of loopback sockets, the server's side non-blocking
 * with a selector to register it with, both with 16 KiB buffers so that the kernel takes only part
 * of a large write, and a blocking reader on the client's side.
 */
final class LoopbackPair implements AutoCloseable {
  final ServerSocketChannel listener;
  /** The client's side, blocking. */
  final SocketChannel reader;
  /** The server's side, non-blocking, not registered yet. */
  final SocketChannel serverSide;
  final Selector selector;

  LoopbackPair() throws IOException {
    listener = ServerSocketChannel.open()
        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    reader = SocketChannel.open(listener.getLocalAddress());
    serverSide = listener.accept();
    serverSide.configureBlocking(false);
    serverSide.setOption(StandardSocketOptions.SO_SNDBUF, 16 * 1024);
    reader.setOption(StandardSocketOptions.SO_RCVBUF, 16 * 1024);
    selector = Selector.open();
  }

  /** Exactly {@code n} bytes from the reader, waiting for them. */
  byte[] readExactly(int n) throws IOException {
    ByteBuffer in = ByteBuffer.allocate(n);
    while (in.hasRemaining()) {
      reader.read(in);
    }
    return in.array();
  }

  @Override
  public void close() throws IOException {
    selector.close();
    reader.close();
    serverSide.close();
    listener.close();
  }

  /** A listener of a connection that does nothing; a test overrides what it watches. */
  static class QuietListener extends WebSocketAdapter {
    @Override public void onWebsocketMessage(WebSocket c, String m) { }
    @Override public void onWebsocketMessage(WebSocket c, ByteBuffer b) { }
    @Override public void onWebsocketOpen(WebSocket c, Handshakedata d) { }
    @Override public void onWebsocketClose(WebSocket c, int code, String r, boolean remote) { }
    @Override public void onWebsocketClosing(WebSocket c, int code, String r, boolean remote) { }
    @Override public void onWebsocketCloseInitiated(WebSocket c, int code, String r) { }
    @Override public void onWebsocketError(WebSocket c, Exception e) { }
    @Override public void onWriteDemand(WebSocket c) { }
    @Override public InetSocketAddress getLocalSocketAddress(WebSocket c) { return null; }
    @Override public InetSocketAddress getRemoteSocketAddress(WebSocket c) { return null; }
  }
}
