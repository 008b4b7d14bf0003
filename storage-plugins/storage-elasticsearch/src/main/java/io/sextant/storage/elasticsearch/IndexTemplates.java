package io.sextant.storage.elasticsearch;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The index templates, and the fields later releases added to live indices, that every write needs
 * in place: a document written first would create its index with guessed mappings. Installed by the
 * first write ({@link #ensure}), not at start, so a collector starts and becomes ready whatever
 * Elasticsearch is doing (down, frozen, refusing); until then writes fail like any write to a store
 * that is away, and what was accepted waits in the write queue.
 */
final class IndexTemplates {
  private final ElasticsearchClient client;
  private final Indices indices;
  private final ElasticsearchConfig config;
  private volatile boolean installed;

  IndexTemplates(ElasticsearchClient client, Indices indices, ElasticsearchConfig config) {
    this.client = client;
    this.indices = indices;
    this.config = config;
  }

  /** Installs the templates unless done already; throws when Elasticsearch cannot take them now. */
  void ensure() {
    if (installed) {
      return;
    }
    synchronized (this) {
      if (!installed) {
        install();
        installed = true;
      }
    }
  }

  private void install() {
    // The flusher refreshes after each write cycle (publish), so the periodic refresh is only a
    // fallback: at 1 s it made ten small segments per cycle, a third of Elasticsearch's CPU.
    String common = "\"number_of_shards\":" + config.shards() + ",\"number_of_replicas\":" + config.replicas()
        + ",\"refresh_interval\":\"30s\"";
    String settings = "\"settings\":{" + common + "}";
    // Segments sorted by entity and bucket keep one series' documents next to each other, so a
    // query reads a few compressed blocks of stored documents instead of one block per bucket.
    String sortedByEntity = "\"settings\":{" + common
        + ",\"sort.field\":[\"entity\",\"bucket\"],\"sort.order\":[\"asc\",\"asc\"]}";
    template("metrics", indices.prefix() + "-metrics-*", sortedByEntity, """
        {"dynamic":"strict","properties":{
          "entity":{"type":"keyword"},"step":{"type":"keyword"},
          "bucket":{"type":"long"},"writer":{"type":"keyword"},"seq":{"type":"long"},
          "group":{"type":"keyword"},"metrics":{"type":"keyword"},"rid":{"type":"keyword"},
          "written":{"type":"long"},"states":{"type":"object","enabled":false},""" + LATER_METRIC_FIELDS + "}}");
    addLaterMetricFields();
    template("edges", indices.edgesPattern(), settings, """
        {"dynamic":"strict","properties":{
          "key":{"type":"keyword","eager_global_ordinals":true},"scope":{"type":"keyword"},
          "minutes":{"type":"long"}}}""");
    template("metadata", indices.metadata(), settings, """
        {"dynamic":"strict","properties":{
          "kind":{"type":"keyword"},"id":{"type":"keyword"},"serviceId":{"type":"keyword"},
          "name":{"type":"keyword"},"normal":{"type":"boolean"},"layers":{"type":"keyword"},
          "layer":{"type":"keyword"},"attrs":{"type":"keyword","index":false,"doc_values":false},
          "firstSeen":{"type":"long"},"lastSeen":{"type":"long"},"writer":{"type":"keyword"},
          "docId":{"type":"keyword"},""" + PROCESS_FIELDS + "}}");
    addProcessFields();
    // Newest first is how records are read: sorted segments let a search stop after the limit.
    String newestFirst = "\"settings\":{" + common + ",\"sort.field\":\"time\",\"sort.order\":\"desc\"}";
    template("records", indices.recordsPattern(), newestFirst, """
        {"dynamic":"strict","properties":{
          "kind":{"type":"keyword"},"id":{"type":"keyword"},"entity":{"type":"keyword"},
          "time":{"type":"long"},"tags":{"type":"keyword"},"body":{"type":"binary"}}}""");
    template("management", indices.management(), settings, """
        {"dynamic":"strict","properties":{
          "kind":{"type":"keyword"},"id":{"type":"keyword"},"version":{"type":"long"},
          "updated":{"type":"long"},"body":{"type":"keyword","index":false,"doc_values":false}}}""");
    template("parked", indices.parked(), settings, """
        {"dynamic":"strict","properties":{
          "index":{"type":"keyword"},"id":{"type":"keyword"},"status":{"type":"integer"},
          "type":{"type":"keyword"},"reason":{"type":"keyword","index":false,"doc_values":false},
          "parked":{"type":"long"},"document":{"type":"object","enabled":false}}}""");
  }

  /** The metrics fields added after the first release: compaction's (closed, slot, covers). */
  private static final String LATER_METRIC_FIELDS = """
      "closed":{"type":"boolean"},"slot":{"type":"integer"},
      "covers":{"type":"keyword","index":false,"doc_values":false}""";

  /**
   * Metrics indices made by an older Sextant have a strict mapping without {@code written} and the
   * compaction fields: add them, or documents carrying them would be refused. Their old documents
   * have none, so a cached read finds them only in its first, full read, and they are not compacted.
   */
  private void addLaterMetricFields() {
    try {
      String json = "{\"properties\":{\"" + Bulk.WRITTEN + "\":{\"type\":\"long\"}," + LATER_METRIC_FIELDS + "}}";
      client.indices().putMapping(m -> m.index(indices.prefix() + "-metrics-*").allowNoIndices(true)
          .withJson(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8))));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot add the later fields to the metrics indices", e);
    }
  }

  /** The metadata fields of processes (added after the first release of the metadata index). */
  private static final String PROCESS_FIELDS = """
      "instanceId":{"type":"keyword"},"agentId":{"type":"keyword"},"detectType":{"type":"keyword"},
      "labels":{"type":"keyword"},"profiling":{"type":"boolean"},
      "props":{"type":"keyword","index":false,"doc_values":false}""";

  /**
   * A metadata index made by an older Sextant has a strict mapping without the process fields, and
   * templates apply only to new indices: adding fields to a mapping is allowed on a live index.
   */
  private void addProcessFields() {
    try {
      if (client.indices().exists(e -> e.index(indices.metadata())).value()) {
        String json = "{\"properties\":{" + PROCESS_FIELDS + "}}";
        client.indices().putMapping(m -> m.index(indices.metadata())
            .withJson(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8))));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot add the process fields to " + indices.metadata(), e);
    }
  }

  private void template(String name, String pattern, String settings, String mappings) {
    String json = "{\"index_patterns\":[\"" + pattern + "\"],\"priority\":100,\"template\":{" + settings
        + ",\"mappings\":" + mappings + "}}";
    try {
      client.indices().putIndexTemplate(t -> t.name(indices.prefix() + "-" + name)
          .withJson(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8))));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create index template " + name, e);
    }
  }
}
