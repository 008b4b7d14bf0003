package io.sextant.testkit.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Smoke test: a real Elasticsearch starts, stores a document, stops, restarts and still has it. */
class ElasticsearchExtensionIT {
  private static final Logger LOG = LoggerFactory.getLogger(ElasticsearchExtensionIT.class);

  @RegisterExtension
  static final ElasticsearchExtension ES = new ElasticsearchExtension();

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void startsStoresStopsRestartsAndKeepsData() throws Exception {
    assertThat(ES.isRunning()).isTrue();
    assertThat(ES.hostAndPort()).isEqualTo("127.0.0.1:" + ES.httpPort());
    assertThat(ES.httpUrl()).isEqualTo("http://127.0.0.1:" + ES.httpPort());
    LOG.info("first start: {} ms, server RSS {} MB", ES.lastStartDuration().orElseThrow().toMillis(),
        ES.residentSetSizeBytes() / (1024 * 1024));

    HttpResponse<String> health = get("/_cluster/health");
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body()).containsAnyOf("\"status\":\"green\"", "\"status\":\"yellow\"");

    HttpResponse<String> put = send(HttpRequest.newBuilder(uri("/t/_doc/1?refresh=true"))
        .header("Content-Type", "application/json")
        .PUT(HttpRequest.BodyPublishers.ofString("{\"service\":\"checkout\",\"latency_ms\":42}")));
    assertThat(put.statusCode()).isEqualTo(201);
    assertDocumentPresent();

    int port = ES.httpPort();
    var dataDir = ES.instanceDirectory().resolve("data");
    ES.stop();
    assertThat(ES.isRunning()).isFalse();
    assertThat(ES.pid()).isEmpty();
    assertThat(portOpen(port)).as("HTTP port %d closed after stop()", port).isFalse();
    assertThat(portOpen(ES.transportPort())).as("transport port closed after stop()").isFalse();

    ES.start();
    assertThat(ES.httpPort()).isEqualTo(port);
    assertThat(ES.instanceDirectory().resolve("data")).isEqualTo(dataDir);
    assertThat(Files.isDirectory(dataDir)).isTrue();
    LOG.info("restart: {} ms, server RSS {} MB", ES.lastStartDuration().orElseThrow().toMillis(),
        ES.residentSetSizeBytes() / (1024 * 1024));
    assertDocumentPresent();
  }

  private void assertDocumentPresent() throws Exception {
    HttpResponse<String> doc = get("/t/_doc/1");
    assertThat(doc.statusCode()).isEqualTo(200);
    assertThat(doc.body()).contains("\"found\":true").contains("\"service\":\"checkout\"")
        .contains("\"latency_ms\":42");
  }

  private URI uri(String path) {
    return URI.create(ES.httpUrl() + path);
  }

  private HttpResponse<String> get(String path) throws Exception {
    return send(HttpRequest.newBuilder(uri(path)).GET());
  }

  private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    return http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static boolean portOpen(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
