package io.sextant.testkit.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A loopback port nothing listens on right now, for a server a test is about to start.
 *
 * <p>Chosen below the kernel's ephemeral range: a port the kernel handed out (what binding port 0
 * does) may be handed out again as the local port of any outgoing connection before the server
 * binds it, and a collector process takes seconds to get there ("Address already in use" in CI).
 * Below the range only another listener can take it.
 */
public final class FreePort {
  private static final int LOWEST = 10_000;
  private static final int TRIES = 100;

  private FreePort() {}

  public static int any() {
    int ephemeralStart = ephemeralStart();
    if (ephemeralStart - LOWEST >= 1_000) {
      for (int i = 0; i < TRIES; i++) {
        int port = ThreadLocalRandom.current().nextInt(LOWEST, ephemeralStart);
        if (isFree(port)) {
          return port;
        }
      }
    }
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean isFree(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * The first port of Linux's ephemeral range; elsewhere the range IANA suggests (49152). Read as
   * lines: a /proc file reports size 0, and {@code Files.readString} read only its first byte.
   */
  private static int ephemeralStart() {
    try {
      String range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim();
      return Integer.parseInt(range.split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return 49_152;
    }
  }
}
