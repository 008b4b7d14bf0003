package io.sextant.storage.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.storage.PartialRow;
import io.sextant.api.time.Step;
import io.sextant.testkit.poll.Poll;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What Elasticsearch answers when it does not take a document, against a real server: a write block
 * and a flood-stage block are outages (the write throws, the caller keeps the rows, nothing is
 * parked), a missing index is created when the cluster does not create indices on write, and a
 * document refused for good (a mapping conflict) is parked whole with the answer while the others
 * are written. Run by {@link ElasticsearchStorageComplianceIT} on its server.
 */
abstract class WriteRefusals {
  private static final String ENTITY = "c2VydmljZQ==.1";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  /** A started store on a new prefix, its meters in {@code registry}. */
  protected abstract ElasticsearchStorage newStorage(SimpleMeterRegistry registry);

  protected abstract String prefix();

  protected abstract String url();

  @Test
  void aWriteBlockAndAFloodStageBlockKeepTheRowsUntilLiftedAndParkNothing() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ElasticsearchStorage es = newStorage(registry);
    long minute = 202611250900L;
    es.metrics().write(List.of(row(minute, 0, 1)));
    String index = prefix() + "-metrics-minute-20261125";

    request("PUT", "/" + index + "/_settings", "{\"index.blocks.write\":true}");
    assertThatThrownBy(() -> es.metrics().write(List.of(row(minute, 0, 2), row(minute + 1, 0, 3))))
        .isInstanceOf(Bulk.WritesBlocked.class).hasMessageContaining("blocks writes")
        .hasMessageContaining("403").hasMessageContaining(index);
    assertThat(counter(registry, "sextant_es_documents_blocked")).isEqualTo(2);
    request("PUT", "/" + index + "/_settings", "{\"index.blocks.write\":null}");

    // Disk past the flood stage: Elasticsearch 8 answers 429, resent with backoff, then given back.
    request("PUT", "/" + index + "/_settings", "{\"index.blocks.read_only_allow_delete\":true}");
    assertThatThrownBy(() -> es.metrics().write(List.of(row(minute, 0, 2), row(minute + 1, 0, 3))))
        .hasMessageContaining("still pushed back");
    request("PUT", "/" + index + "/_settings", "{\"index.blocks.read_only_allow_delete\":null}");

    // The caller's retry, as the flusher's after an outage: the latest versions land.
    es.metrics().write(List.of(row(minute, 0, 2), row(minute + 1, 0, 3)));
    es.publish();
    assertThat(calls(es, minute, minute + 1)).isEqualTo(5);
    assertThat(request("HEAD", "/" + prefix() + "-parked", null).statusCode()).isEqualTo(404);
  }

  @Test
  void anIndexTheClusterDoesNotCreateOnWriteIsCreatedWithTheTemplate() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ElasticsearchStorage es = newStorage(registry);
    request("PUT", "/_cluster/settings", "{\"persistent\":{\"action.auto_create_index\":\"false\"}}");
    try {
      es.metrics().write(List.of(row(202611240900L, 0, 4), row(202611240901L, 0, 5)));
    } finally {
      request("PUT", "/_cluster/settings", "{\"persistent\":{\"action.auto_create_index\":null}}");
    }
    es.publish();
    assertThat(calls(es, 202611240900L, 202611240901L)).isEqualTo(9);
    assertThat(counter(registry, "sextant_es_indices_created")).isEqualTo(1);
    JsonNode mapping = JSON.readTree(request("GET", "/" + prefix() + "-metrics-minute-20261124/_mapping", null).body());
    assertThat(mapping.findValue("dynamic").asText()).as("the template applied").isEqualTo("strict");
  }

  @Test
  void aDocumentRefusedForGoodIsParkedWholeAndTheOthersAreWritten() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ElasticsearchStorage es = newStorage(registry);
    es.metrics().write(List.of(row(202611210900L, 0, 1))); // Sextant ran here before: its templates are in
    // An index someone made by hand, where a field has another type than Sextant writes.
    String broken = prefix() + "-metrics-minute-20261123";
    request("PUT", "/" + broken, "{\"mappings\":{\"properties\":{\"seq\":{\"type\":\"boolean\"}}}}");

    es.metrics().write(List.of(row(202611230900L, 7, 6), row(202611220900L, 7, 8)));
    es.publish();

    assertThat(calls(es, 202611220900L, 202611220900L)).as("the other document").isEqualTo(8);
    assertThat(calls(es, 202611230900L, 202611230900L)).isZero();
    JsonNode hits = JSON.readTree(request("GET", "/" + prefix() + "-parked/_search", null).body()).path("hits");
    assertThat(hits.path("total").path("value").asInt()).isEqualTo(1);
    JsonNode parked = hits.path("hits").get(0).path("_source");
    assertThat(parked.path("index").asText()).isEqualTo(broken);
    assertThat(parked.path("status").asInt()).isEqualTo(400);
    assertThat(parked.path("reason").asText()).contains("seq");
    assertThat(parked.path("document").path("entity").asText()).isEqualTo(ENTITY);
    assertThat(parked.path("document").path("seq").asLong()).isEqualTo(7);
    String type = parked.path("type").asText();
    assertThat(registry.get("sextant_es_documents_parked").tag("type", type).counter().count()).isEqualTo(1);

    // Once the operator has fixed the index, each parked document goes back as it is kept.
    request("DELETE", "/" + broken, null);
    request("PUT", "/" + parked.path("index").asText() + "/_doc/"
        + URLEncoder.encode(parked.path("id").asText(), StandardCharsets.UTF_8),
        JSON.writeValueAsString(parked.path("document")));
    es.publish();
    // A document put back by hand is another writer's to this collector: it shows within the
    // read staleness bound.
    Poll.until("the document put back read", Duration.ofSeconds(5),
        () -> calls(es, 202611230900L, 202611230900L), n -> n == 6);
  }

  private static PartialRow row(long minute, long seq, long calls) {
    return new PartialRow("CALL_SERVICE", ENTITY, Step.MINUTE, minute, "w", seq,
        List.of(new PartialRow.Cell("service_cpm", new long[] {calls, 0, 0}, null)));
  }

  private static long calls(ElasticsearchStorage es, long from, long to) {
    return es.metrics().read("service_cpm", Set.of(ENTITY), Step.MINUTE, from, to).stream()
        .mapToLong(p -> p.values()[0]).sum();
  }

  private static double counter(SimpleMeterRegistry registry, String name) {
    Counter c = registry.find(name).counter();
    return c == null ? 0 : c.count();
  }

  private HttpResponse<String> request(String method, String path, String body) throws IOException,
      InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url() + path)).header("Content-Type", "application/json")
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() >= 300 && !method.equals("HEAD")) {
      throw new IllegalStateException(method + " " + path + " answered " + r.statusCode() + ": " + r.body());
    }
    return r;
  }
}
