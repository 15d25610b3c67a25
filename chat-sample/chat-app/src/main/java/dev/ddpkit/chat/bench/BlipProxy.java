package dev.ddpkit.chat.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A loopback TCP proxy in front of a server, on one selector thread, that plays the network: it
 * forwards bytes both ways until {@link #cut()} resets every connection at once (no close frame,
 * a TCP reset to both ends, the server process untouched), then refuses new connections with a
 * reset until {@link #restore()}. For the blip benchmark.
 */
final class BlipProxy implements AutoCloseable {
  private static final int BUFFER = 64 * 1024;

  /** One direction of one connection: bytes read from {@code from} wait here for {@code to}. */
  private static final class Pipe {
    final SocketChannel from;
    final SocketChannel to;
    final ByteBuffer buf = ByteBuffer.allocate(BUFFER);
    Pipe other;

    Pipe(SocketChannel from, SocketChannel to) {
      this.from = from;
      this.to = to;
    }
  }

  private final InetSocketAddress upstream;
  private final ServerSocketChannel listener;
  private final Selector selector;
  private final Thread thread;
  private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final List<Pipe> pipes = new ArrayList<>(); // selector thread only
  private volatile boolean up = true;
  private volatile boolean closed;

  /** Listens on an ephemeral loopback port, forwarding to {@code upstreamPort}. */
  BlipProxy(int upstreamPort) {
    try {
      upstream = new InetSocketAddress("127.0.0.1", upstreamPort);
      selector = Selector.open();
      listener = ServerSocketChannel.open();
      listener.bind(new InetSocketAddress("127.0.0.1", 0), 4096);
      listener.configureBlocking(false);
      listener.register(selector, SelectionKey.OP_ACCEPT);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    thread = new Thread(this::loop, "blip-proxy");
    thread.setDaemon(true);
    thread.start();
  }

  /** The port clients dial. */
  int port() {
    return listener.socket().getLocalPort();
  }

  /** Resets every connection now and refuses new ones; returns how many were cut. */
  int cut() {
    CountDownLatch done = new CountDownLatch(1);
    int[] n = new int[1];
    run(() -> {
      up = false;
      List<SocketChannel> ends = new ArrayList<>();
      for (Pipe p : pipes) {
        if (!ends.contains(p.from)) {
          ends.add(p.from);
        }
      }
      n[0] = ends.size() / 2;
      ends.forEach(BlipProxy::reset);
      pipes.clear();
      done.countDown();
    });
    await(done);
    return n[0];
  }

  /** The network is back: new connections are forwarded again. */
  void restore() {
    up = true;
  }

  private void run(Runnable task) {
    tasks.add(task);
    selector.wakeup();
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the proxy's thread did not answer in 30 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private void loop() {
    try {
      while (!closed) {
        selector.select(100);
        for (Runnable t; (t = tasks.poll()) != null; ) {
          t.run();
        }
        for (SelectionKey k : selector.selectedKeys()) {
          if (!k.isValid()) {
            continue;
          }
          if (k.isAcceptable()) {
            accept();
          } else {
            if (k.isValid() && k.isReadable()) {
              read((Pipe) k.attachment(), k);
            }
            if (k.isValid() && k.isWritable()) {
              flush(((Pipe) k.attachment()).other, k);
            }
          }
        }
        selector.selectedKeys().clear();
      }
    } catch (IOException e) {
      if (!closed) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private void accept() throws IOException {
    for (SocketChannel client; (client = listener.accept()) != null; ) {
      if (!up) {
        reset(client);
        continue;
      }
      SocketChannel server;
      try {
        server = SocketChannel.open(upstream); // loopback: at once
      } catch (IOException e) {
        reset(client);
        continue;
      }
      client.configureBlocking(false);
      server.configureBlocking(false);
      client.setOption(StandardSocketOptions.TCP_NODELAY, true);
      server.setOption(StandardSocketOptions.TCP_NODELAY, true);
      Pipe up = new Pipe(client, server);
      Pipe down = new Pipe(server, client);
      up.other = down;
      down.other = up;
      // Each channel's key carries the pipe that reads from it; its write side drains the other.
      client.register(selector, SelectionKey.OP_READ, up);
      server.register(selector, SelectionKey.OP_READ, down);
      pipes.add(up);
      pipes.add(down);
    }
  }

  /** Reads from the pipe's source and writes on; waits for the sink when it is full. */
  private void read(Pipe p, SelectionKey key) {
    try {
      int n = p.from.read(p.buf);
      if (n < 0) {
        closeBoth(p);
        return;
      }
      p.buf.flip();
      p.to.write(p.buf);
      if (p.buf.hasRemaining()) {
        key.interestOps(key.interestOps() & ~SelectionKey.OP_READ);
        p.to.keyFor(selector).interestOps(
            p.to.keyFor(selector).interestOps() | SelectionKey.OP_WRITE);
      }
      p.buf.compact();
    } catch (IOException e) {
      closeBoth(p);
    }
  }

  /** The sink {@code p.to} can take more: write what waits, then read its source again. */
  private void flush(Pipe p, SelectionKey sinkKey) {
    try {
      p.buf.flip();
      p.to.write(p.buf);
      boolean drained = !p.buf.hasRemaining();
      p.buf.compact();
      if (drained) {
        sinkKey.interestOps(sinkKey.interestOps() & ~SelectionKey.OP_WRITE);
        SelectionKey src = p.from.keyFor(selector);
        src.interestOps(src.interestOps() | SelectionKey.OP_READ);
      }
    } catch (IOException e) {
      closeBoth(p);
    }
  }

  private void closeBoth(Pipe p) {
    reset(p.from);
    reset(p.to);
    pipes.remove(p);
    pipes.remove(p.other);
  }

  /** Closes with a reset: SO_LINGER 0, so the peer gets an RST and no FIN. */
  private static void reset(SocketChannel c) {
    try {
      if (c.isOpen()) {
        c.setOption(StandardSocketOptions.SO_LINGER, 0);
        c.close();
      }
    } catch (IOException e) {
      // already gone
    }
  }

  @Override
  public void close() {
    closed = true;
    selector.wakeup();
    try {
      thread.join(5000);
      for (SelectionKey k : selector.keys()) {
        k.channel().close();
      }
      selector.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
