package dev.ddpkit.chat.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Linux's count of SYNs dropped because a listen queue was full ({@code TcpExt ListenDrops} in
 * {@code /proc/net/netstat}), machine-wide. A burst of dials larger than the server's accept
 * backlog is partly dropped by the kernel and retried by the clients' TCP after 1 s, 3 s, 7 s:
 * jitter that the simulation does not have, so the real run reports it.
 */
final class ListenOverflows {
  private ListenOverflows() {}

  /** The counter now, or -1 where it cannot be read. */
  static long read() {
    return read(Path.of("/proc/net/netstat"));
  }

  static long read(Path file) {
    try {
      List<String> lines = Files.readAllLines(file);
      for (int i = 0; i + 1 < lines.size(); i++) {
        String[] names = lines.get(i).split("\\s+");
        String[] values = lines.get(i + 1).split("\\s+");
        if (!names[0].equals("TcpExt:") || !values[0].equals("TcpExt:")) {
          continue;
        }
        for (int k = 1; k < Math.min(names.length, values.length); k++) {
          if (names[k].equals("ListenDrops")) {
            return Long.parseLong(values[k]);
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }
}
