package io.sextant.storage.elasticsearch;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sextant.api.text.Text;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.http.entity.ByteArrayEntity;
import org.apache.http.entity.ContentType;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.RestClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Indexes documents by id in {@code _bulk} requests of at most {@code maxActions} documents, at
 * most {@code concurrency} at a time. What Elasticsearch answers for each document decides its fate,
 * and none is discarded:
 * <ul>
 *   <li>pushed back (429, 5xx; also a flood-stage disk block, which Elasticsearch 8 answers with
 *       429): resent with backoff a few times, then the call throws and the caller keeps the
 *       documents and retries everything later (ids are deterministic, so that is idempotent);
 *   <li>index missing (404, when the cluster does not create indices on write): the index is
 *       created (the templates apply) and the documents resent at once;
 *   <li>blocked (401/403: a write block, a read-only index, a missing privilege): a state of the
 *       cluster an operator fixes, so it is handled as the outage it is: the call throws
 *       {@link WritesBlocked} and the caller keeps the documents;
 *   <li>refused (any other 4xx, e.g. a mapping conflict): cannot succeed however often it is sent, so
 *       the document is parked, whole, in the {@code <prefix>-parked} index with the answer, and
 *       counted; the others go on (docs/reliability.md says how to send parked ones back).
 * </ul>
 */
final class Bulk implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Bulk.class);
  private static final int MAX_ATTEMPTS = 4;
  private static final long FIRST_BACKOFF_MILLIS = 200;

  private static final ContentType NDJSON = ContentType.create("application/x-ndjson", StandardCharsets.UTF_8);

  private final ElasticsearchClient client;
  private final IndexTemplates templates;
  private final RestClient rest;
  /** The typed client's own mapper: documents are serialized exactly as through the typed client. */
  private final ObjectMapper json;
  /** Writes a document's source into the request body without flushing it after each one. */
  private final ObjectWriter source;
  private final int maxActions;
  private final int concurrency;
  private final ExecutorService senders;
  private final MeterRegistry registry;
  private final Timer latency;
  private final Counter retries;
  private final Counter blocked;
  private final Counter createdIndices;
  private final Counter failedRequests;
  private final String parkedIndex;

  /**
   * A source field (of mutable sources) set to the time each request carrying the document is
   * sent, so a resent document is stamped anew: readers ask for what was written since a time.
   */
  static final String WRITTEN = "written";

  record Doc(String index, String id, Map<String, Object> source) {}

  /** Refuses writes for now (401/403): the caller keeps the documents, as in an outage. */
  static final class WritesBlocked extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    WritesBlocked(String message) {
      super(message);
    }
  }

  Bulk(ElasticsearchClient client, IndexTemplates templates, int maxActions, int concurrency, String parkedIndex,
      MeterRegistry registry) {
    this.client = client;
    this.templates = templates;
    this.rest = ((RestClientTransport) client._transport()).restClient();
    this.json = ((JacksonJsonpMapper) client._jsonpMapper()).objectMapper();
    this.source = json.writer().without(SerializationFeature.FLUSH_AFTER_WRITE_VALUE);
    this.parkedIndex = parkedIndex;
    this.maxActions = maxActions;
    this.concurrency = concurrency;
    this.senders = concurrency <= 1 ? null : Executors.newFixedThreadPool(concurrency, r -> {
      Thread t = new Thread(r, "sextant-es-bulk");
      t.setDaemon(true);
      return t;
    });
    this.registry = registry;
    this.latency = Timer.builder("sextant_es_bulk_duration").description("one _bulk request, including its retries")
        .publishPercentiles(0.5, 0.95, 0.99).publishPercentileHistogram().register(registry);
    this.retries = Counter.builder("sextant_es_bulk_retries")
        .description("documents resent because Elasticsearch pushed back (429/5xx)").register(registry);
    this.blocked = Counter.builder("sextant_es_documents_blocked")
        .description("documents refused by a write block or a missing privilege (401/403); kept, retried later")
        .register(registry);
    this.createdIndices = Counter.builder("sextant_es_indices_created")
        .description("indices Sextant created because Elasticsearch does not create them on write (404)")
        .register(registry);
    this.failedRequests = Counter.builder("sextant_es_bulk_failures")
        .description("_bulk requests that failed (unreachable, timeout, still pushed back); retried later")
        .register(registry);
  }

  /** Indexes every document or throws; {@code kind} labels the written-documents counter. */
  void index(String kind, List<Doc> docs) {
    index(kind, docs, d -> d);
  }

  /**
   * Indexes every item as the document {@code toDoc} makes of it, or throws. Items become
   * documents one request at a time, so a large write holds at most {@code concurrency} requests'
   * documents in memory.
   */
  <T> void index(String kind, List<T> items, Function<T, Doc> toDoc) {
    templates.ensure();
    Counter written = Counter.builder("sextant_es_documents_written").tag("kind", kind)
        .description("documents indexed").register(registry);
    if (senders == null || items.size() <= maxActions) {
      for (int from = 0; from < items.size(); from += maxActions) {
        send(docs(items.subList(from, Math.min(items.size(), from + maxActions)), toDoc), written);
      }
      return;
    }
    // At most `concurrency` requests queued or in flight: each waits for the oldest before the next.
    ArrayDeque<Future<?>> inFlight = new ArrayDeque<>();
    for (int from = 0; from < items.size(); from += maxActions) {
      List<T> chunk = items.subList(from, Math.min(items.size(), from + maxActions));
      if (inFlight.size() >= concurrency) {
        await(inFlight.poll());
      }
      inFlight.add(senders.submit(() -> send(docs(chunk, toDoc), written)));
    }
    RuntimeException failure = null;
    while (!inFlight.isEmpty()) {
      try {
        await(inFlight.poll());
      } catch (RuntimeException e) {
        failure = e;
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static <T> List<Doc> docs(List<T> items, Function<T, Doc> toDoc) {
    List<Doc> out = new ArrayList<>(items.size());
    for (T item : items) {
      out.add(toDoc.apply(item));
    }
    return out;
  }

  private static void await(Future<?> f) {
    try {
      f.get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while indexing", e);
    }
  }

  private void send(List<Doc> docs, Counter written) {
    long started = System.nanoTime();
    try {
      resend(docs, written, false);
    } catch (RuntimeException e) {
      failedRequests.increment();
      throw e;
    } finally {
      latency.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
    }
  }

  /** Sends until every document is written or parked, or throws (see the class comment). */
  private void resend(List<Doc> docs, Counter written, boolean parking) {
    List<Doc> todo = docs;
    for (int attempt = 1; ; attempt++) {
      Answers answers = sendOnce(todo, written);
      if (!answers.blocked().isEmpty()) {
        blocked.increment(answers.blocked().size());
        Refusal first = answers.blocked().get(0);
        throw new WritesBlocked("Elasticsearch blocks writes: " + answers.blocked().size() + " documents answered "
            + first.status() + " " + first.type() + " in " + first.doc().index() + " (" + first.reason()
            + "); kept and retried later, as in an outage");
      }
      if (!answers.refused().isEmpty()) {
        if (parking) {
          Refusal first = answers.refused().get(0);
          throw new IllegalStateException("Elasticsearch refused to park " + answers.refused().size()
              + " documents (" + first.status() + " " + first.type() + ": " + first.reason() + "); retried later");
        }
        park(answers.refused());
      }
      answers.missingIndices().forEach(this::create);
      List<Doc> again = new ArrayList<>(answers.pushedBack());
      again.addAll(answers.inMissingIndices());
      if (again.isEmpty()) {
        return;
      }
      if (attempt == MAX_ATTEMPTS) {
        throw new IllegalStateException(again.size() + " documents still pushed back after " + MAX_ATTEMPTS
            + " attempts");
      }
      if (!answers.pushedBack().isEmpty()) {
        retries.increment(answers.pushedBack().size());
        sleep(FIRST_BACKOFF_MILLIS << (2 * (attempt - 1)));
      }
      todo = again;
    }
  }

  /** One document Elasticsearch did not take, with its answer. */
  private record Refusal(Doc doc, int status, String type, String reason) {}

  /** What one request's documents need next; the written ones are counted already. */
  private record Answers(List<Doc> pushedBack, Set<String> missingIndices, List<Doc> inMissingIndices,
      List<Refusal> blocked, List<Refusal> refused) {}

  /**
   * Sends one request and sorts the documents by what Elasticsearch answered for each. The body
   * is written and the answer read with Jackson over the low-level client, the answer filtered to
   * what decides each document's fate and read no further than {@code "errors":false}. The typed
   * client built request objects per document and decoded every item of the answer (shards,
   * versions, sequence numbers): CPU the write path does not need, and code the JIT compiles after
   * each start while the first dashboards wait.
   */
  private Answers sendOnce(List<Doc> docs, Counter written) {
    Long now = System.currentTimeMillis();
    ByteArrayOutputStream body = new ByteArrayOutputStream(docs.size() * 512);
    try (JsonGenerator g = json.getFactory().createGenerator(body)) {
      g.setRootValueSeparator(null);
      for (Doc d : docs) {
        if (d.source().containsKey(WRITTEN)) {
          d.source().put(WRITTEN, now);
        }
        g.writeStartObject();
        g.writeObjectFieldStart("index");
        g.writeStringField("_index", d.index());
        g.writeStringField("_id", d.id());
        g.writeEndObject();
        g.writeEndObject();
        g.writeRaw('\n');
        source.writeValue(g, d.source());
        g.writeRaw('\n');
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write a bulk request", e);
    }
    Request request = new Request("POST", "/_bulk");
    request.addParameter("filter_path", "errors,items.*.status,items.*.error.type,items.*.error.reason");
    request.setEntity(new ByteArrayEntity(body.toByteArray(), NDJSON));
    Answers answers = new Answers(new ArrayList<>(), new LinkedHashSet<>(), new ArrayList<>(), new ArrayList<>(),
        new ArrayList<>());
    try (InputStream in = rest.performRequest(request).getEntity().getContent();
        JsonParser p = json.getFactory().createParser(in)) {
      expect(p, JsonToken.START_OBJECT);
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        if ("errors".equals(field) && value == JsonToken.VALUE_FALSE) {
          written.increment(docs.size());
          return answers;
        }
        if ("items".equals(field) && value == JsonToken.START_ARRAY) {
          sortItems(p, docs, answers, written);
          return answers;
        }
        p.skipChildren();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("bulk request failed: " + Search.reason(e), e);
    }
    throw new IllegalStateException("Elasticsearch answered a _bulk request with errors and no items; retried later");
  }

  /** Reads the answer's items, one per document in order, each {@code {"<op>":{"status":..,"error":{..}}}}. */
  private static void sortItems(JsonParser p, List<Doc> docs, Answers answers, Counter written) throws IOException {
    int i = 0;
    while (p.nextToken() == JsonToken.START_OBJECT) {
      expect(p, JsonToken.FIELD_NAME);
      expect(p, JsonToken.START_OBJECT);
      int status = 0;
      String type = null;
      String reason = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        p.nextToken();
        if ("status".equals(field)) {
          status = p.getIntValue();
        } else if ("error".equals(field) && p.currentToken() == JsonToken.START_OBJECT) {
          while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            p.nextToken();
            if ("type".equals(name)) {
              type = p.getValueAsString();
            } else if ("reason".equals(name)) {
              reason = p.getValueAsString();
            } else {
              p.skipChildren();
            }
          }
        } else {
          p.skipChildren();
        }
      }
      expect(p, JsonToken.END_OBJECT);
      if (i == docs.size()) {
        throw new IllegalStateException("Elasticsearch answered more items than the " + docs.size() + " sent");
      }
      Doc doc = docs.get(i++);
      if (type == null && status < 300) {
        written.increment();
      } else if (status == 429 || status >= 500) {
        answers.pushedBack().add(doc);
      } else if (status == 404 && "index_not_found_exception".equals(type)) {
        answers.missingIndices().add(doc.index());
        answers.inMissingIndices().add(doc);
      } else {
        Refusal refusal = new Refusal(doc, status, String.valueOf(type), String.valueOf(reason));
        (status == 401 || status == 403 ? answers.blocked() : answers.refused()).add(refusal);
      }
    }
    if (i != docs.size()) {
      throw new IllegalStateException("Elasticsearch answered " + i + " items for the " + docs.size() + " sent");
    }
  }

  private static void expect(JsonParser p, JsonToken expected) throws IOException {
    JsonToken actual = p.nextToken();
    if (actual != expected) {
      throw new JsonParseException(p, "unexpected _bulk answer: " + actual + " where " + expected + " belongs");
    }
  }

  /** Longest reason kept with a parked document. */
  private static final int MAX_REASON_CHARS = 2_000;
  /** Longer parked ids are hashed: Elasticsearch refuses ids over 512 bytes. */
  private static final int MAX_PARKED_ID_CHARS = 400;

  /** Keeps documents that can never be indexed where they were sent, with the reason, and counts them. */
  private void park(List<Refusal> refused) {
    Long now = System.currentTimeMillis();
    List<Doc> parked = new ArrayList<>(refused.size());
    for (Refusal r : refused) {
      Map<String, Object> d = new LinkedHashMap<>();
      d.put("index", r.doc().index());
      d.put("id", r.doc().id());
      d.put("status", r.status());
      d.put("type", r.type());
      d.put("reason", Text.shortened(r.reason(), MAX_REASON_CHARS));
      d.put("parked", now);
      d.put("document", r.doc().source());
      String id = r.doc().index() + "/" + r.doc().id();
      parked.add(new Doc(parkedIndex, id.length() > MAX_PARKED_ID_CHARS ? sha256(id) : id, d));
    }
    resend(parked, Counter.builder("sextant_es_documents_written").tag("kind", "parked")
        .description("documents indexed").register(registry), true);
    Map<String, Integer> byType = new TreeMap<>();
    refused.forEach(r -> byType.merge(r.type(), 1, Integer::sum));
    byType.forEach((type, n) -> Counter.builder("sextant_es_documents_parked").tag("type", type)
        .description("documents Elasticsearch refused for good (4xx), kept in the parked index").register(registry)
        .increment(n));
    Refusal first = refused.get(0);
    LOG.error("Elasticsearch refused {} documents for good ({}); parked in {}. The first, {} in {}: {} {}",
        refused.size(), byType, parkedIndex, first.doc().id(), first.doc().index(), first.status(), first.reason());
  }

  private void create(String index) {
    try {
      client.indices().create(c -> c.index(index));
      createdIndices.increment();
      LOG.info("Created index {}: Elasticsearch does not create indices on write", index);
    } catch (ElasticsearchException e) {
      if (e.status() == 401 || e.status() == 403) {
        blocked.increment();
        throw new WritesBlocked("Elasticsearch refuses to create index " + index + " (" + e.status() + " "
            + e.error().type() + "); kept and retried later, as in an outage");
      }
      if (!"resource_already_exists_exception".equals(e.error().type())) {
        throw e;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create index " + index, e);
    }
  }

  private static String sha256(String s) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while backing off", e);
    }
  }

  @Override
  public void close() {
    if (senders != null) {
      senders.shutdownNow();
    }
  }
}
