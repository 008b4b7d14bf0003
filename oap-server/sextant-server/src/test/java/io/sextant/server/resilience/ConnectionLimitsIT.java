package io.sextant.server.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.sextant.server.testing.Bookinfo;
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
import org.apache.skywalking.apm.network.servicemesh.v3.Protocol;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A peer that opens connections without end cannot take the collector's file descriptors and
 * memory: past {@code server.maxConnections} new connections are closed at once, while the open
 * ones stay served.
 */
class ConnectionLimitsIT {
  @RegisterExtension
  static final SextantExtension SEXTANT = SextantExtension.perTest(Map.of("server.maxConnections", "4",
      // An idle timeout far above the PING interval: what closes the silent peer is the PING.
      "server.pingIntervalSeconds", "1", "server.idleTimeoutSeconds", "30",
      "server.maxMessagesPerSecondPerPeer", "100"));

  /**
   * A peer that sends faster than server.maxMessagesPerSecondPerPeer is read at that rate: its
   * stream takes longer, everything it sent is taken, and the wait is counted.
   */
  @Test
  void aPeerSendingFasterThanItsRateIsSlowedDownNotRefused() throws Exception {
    TestServer sextant = SEXTANT.server();
    long time = System.currentTimeMillis();
    List<ServiceMeshMetrics> messages = new Bookinfo(time).calls("fast-client", "fast-client-0", "fast-server",
        "fast-server-0", "GET:/", 150, 5, 0, 0, Protocol.HTTP, true, true).messages(1);
    long started = System.nanoTime();
    assertThat(sextant.stream(messages)).isEqualTo(Status.OK);
    long millis = (System.nanoTime() - started) / 1_000_000;
    // 300 messages at 100 a second, the first second's 100 at once: about 2 s.
    assertThat(millis).as("the stream was read at the peer's rate").isBetween(1_500L, 10_000L);
    assertThat(sextant.get("/metrics")).contains("sextant_records_accepted_total{kind=\"call\"} 300.0");
    String throttled = sextant.get("/metrics").lines()
        .filter(l -> l.startsWith("sextant_grpc_throttled_messages_total")).findFirst().orElseThrow();
    assertThat(Double.parseDouble(throttled.substring(throttled.lastIndexOf(' ') + 1))).isGreaterThanOrEqualTo(150);
  }

  /**
   * A peer that opens a stream and then goes silent (its node lost, the network cut: no FIN, no
   * RST) does not hold the connection and its stream for ever: it gets a PING, does not answer,
   * and the server closes the connection.
   */
  @Test
  void aPeerThatVanishesMidStreamIsClosedAfterAnUnansweredPing() throws Exception {
    TestServer sextant = SEXTANT.server();
    try (Socket s = new Socket("127.0.0.1", sextant.grpcPort)) {
      assertThat(start(s)).isTrue();
      OutputStream out = s.getOutputStream();
      out.write(headers(1, Map.of(":method", "POST", ":scheme", "http", ":authority", "sextant",
          ":path", "/skywalking.v3.ServiceMeshMetricService/collect", "content-type", "application/grpc",
          "te", "trailers")));
      out.flush();
      // From here the peer reads nothing and answers nothing.
      long started = System.nanoTime();
      s.setSoTimeout(15_000);
      InputStream in = s.getInputStream();
      byte[] sink = new byte[4096];
      try {
        while (in.read(sink) >= 0) {
          // what the server sends (SETTINGS, PING, GOAWAY) is read and left unanswered
        }
      } catch (IOException reset) {
        // closed with a reset: as good as a FIN here
      }
      long seconds = (System.nanoTime() - started) / 1_000_000_000L;
      assertThat(seconds).as("closed after a PING interval and an unanswered PING").isBetween(1L, 10L);
    }
  }

  /** A HEADERS frame opening stream {@code id} (no END_STREAM), each header a literal HPACK field. */
  private static byte[] headers(int id, Map<String, String> fields) {
    java.io.ByteArrayOutputStream block = new java.io.ByteArrayOutputStream();
    for (Map.Entry<String, String> f : fields.entrySet()) {
      block.write(0); // literal header field without indexing, new name
      byte[] name = f.getKey().getBytes(StandardCharsets.US_ASCII);
      byte[] value = f.getValue().getBytes(StandardCharsets.US_ASCII);
      block.write(name.length);
      block.writeBytes(name);
      block.write(value.length);
      block.writeBytes(value);
    }
    byte[] payload = block.toByteArray();
    return java.nio.ByteBuffer.allocate(9 + payload.length).put((byte) (payload.length >> 16))
        .put((byte) (payload.length >> 8)).put((byte) payload.length).put((byte) 1).put((byte) 4).putInt(id)
        .put(payload).array();
  }

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
