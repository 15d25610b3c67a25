package dev.ddpkit.ddp.testserver;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.SocketChannel;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;

/**
 * A socket channel that, while blackholed, reads and throws away what arrives and pretends to write
 * what is sent: the peer's kernel still sees its bytes acknowledged, but no answer ever comes back,
 * as with a half-open connection. Reads go on so that the selector does not spin on unread data.
 */
final class BlackholeChannel implements ByteChannel {
  private final SocketChannel channel;
  private final BooleanSupplier blackholed;
  private final IntConsumer discarded;

  BlackholeChannel(SocketChannel channel, BooleanSupplier blackholed, IntConsumer discarded) {
    this.channel = channel;
    this.blackholed = blackholed;
    this.discarded = discarded;
  }

  @Override
  public int read(ByteBuffer dst) throws IOException {
    int n = channel.read(dst);
    if (n > 0 && blackholed.getAsBoolean()) {
      dst.position(dst.position() - n);
      discarded.accept(n);
      return 0;
    }
    return n;
  }

  @Override
  public int write(ByteBuffer src) throws IOException {
    if (blackholed.getAsBoolean()) {
      int n = src.remaining();
      src.position(src.limit());
      discarded.accept(n);
      return n;
    }
    return channel.write(src);
  }

  @Override
  public boolean isOpen() {
    return channel.isOpen();
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
