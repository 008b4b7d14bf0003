package io.sextant.testkit.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

/** A loopback port nothing listens on right now, for a server a test is about to start. */
public final class FreePort {
  private FreePort() {}

  public static int any() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
