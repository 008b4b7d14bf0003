package io.sextant.testkit.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** A free port is one a server can bind, and one no outgoing connection can be given meanwhile. */
class FreePortTest {
  @Test
  void aFreePortBindsAndLiesBelowTheEphemeralRange() throws Exception {
    Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    int ephemeralStart = Files.exists(range)
        ? Integer.parseInt(Files.readAllLines(range).get(0).trim().split("\\s+")[0]) : 49_152;
    for (int i = 0; i < 20; i++) {
      int port = FreePort.any();
      assertThat(port).isBetween(10_000, ephemeralStart - 1);
      try (ServerSocket s = new ServerSocket()) {
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      }
    }
  }

  @Test
  void aPortSomeoneListensOnIsNeverGiven() throws Exception {
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), FreePort.any()));
      for (int i = 0; i < 200; i++) {
        assertThat(FreePort.any()).isNotEqualTo(taken.getLocalPort());
      }
    }
  }
}
