package io.sextant.server.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.server.testing.SextantExtension;
import io.sextant.server.testing.TestServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A peer that opens connections without end cannot take the collector's file descriptors and
 * memory: past {@code server.maxConnections} new connections are closed at once, while the open
 * ones stay served.
 */
class ConnectionLimitsIT {
  @RegisterExtension
  static final SextantExtension SEXTANT = SextantExtension.perTest(Map.of("server.maxConnections", "4"));

  @Test
  void connectionsPastTheLimitAreClosedAtOnceAndTheOthersStayOpen() throws Exception {
    TestServer sextant = SEXTANT.server();
    List<Socket> sockets = new ArrayList<>();
    try {
      int closedAtOnce = 0;
      for (int i = 0; i < 8; i++) {
        Socket s = new Socket("127.0.0.1", sextant.grpcPort);
        sockets.add(s);
        if (!start(s) || closedByServer(s)) {
          closedAtOnce++;
        }
      }
      assertThat(closedAtOnce).as("of 8 connections with a limit of 4").isGreaterThanOrEqualTo(4);
      assertThat(closedByServer(sockets.get(0))).as("the first connection stays open").isFalse();
    } finally {
      for (Socket s : sockets) {
        s.close();
      }
    }
    // Freed connections make room again: the server answers as before.
    assertThat(sextant.get("/readyz")).isEqualTo("ready");
    assertThat(sextant.get("/metrics")).contains("armeria_server_connections ");
  }

  /** The HTTP/2 preface and an empty SETTINGS frame: a well-behaved start. False if the server reset it. */
  private static boolean start(Socket s) {
    try {
      OutputStream out = s.getOutputStream();
      out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      out.write(new byte[] {0, 0, 0, 4, 0, 0, 0, 0, 0});
      out.flush();
      return true;
    } catch (IOException reset) {
      return false;
    }
  }

  /** True if the server closed the connection within half a second (its SETTINGS frames are read past). */
  private static boolean closedByServer(Socket s) throws IOException {
    s.setSoTimeout(500);
    InputStream in = s.getInputStream();
    try {
      while (in.read() >= 0) {
        // the server's SETTINGS and its ACK of ours
      }
      return true;
    } catch (SocketTimeoutException stillOpen) {
      return false;
    } catch (IOException reset) {
      return true;
    }
  }
}
