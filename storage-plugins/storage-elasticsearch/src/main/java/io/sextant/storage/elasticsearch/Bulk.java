package io.sextant.storage.elasticsearch;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.bulk.BulkResponseItem;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Indexes documents by id in {@code _bulk} requests of at most {@code maxActions} documents, at
 * most {@code concurrency} at a time. Documents Elasticsearch pushes back (429, 5xx) are resent
 * with backoff a few times; if they still fail, or the request itself fails, the call throws and
 * the caller retries everything later (ids are deterministic, so that is idempotent). Documents
 * refused for good (4xx: a bug, not a state of the cluster) are dropped, counted and logged, so
 * that one bad document cannot hold back all others forever.
 */
final class Bulk implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Bulk.class);
  private static final int MAX_ATTEMPTS = 4;
  private static final long FIRST_BACKOFF_MILLIS = 200;

  private final ElasticsearchClient client;
  private final int maxActions;
  private final int concurrency;
  private final ExecutorService senders;
  private final MeterRegistry registry;
  private final Timer latency;
  private final Counter retries;
  private final Counter rejected;
  private final Counter failedRequests;

  /**
   * A source field (of mutable sources) set to the time each request carrying the document is
   * sent, so a resent document is stamped anew: readers ask for what was written since a time.
   */
  static final String WRITTEN = "written";

  record Doc(String index, String id, Map<String, Object> source) {}

  Bulk(ElasticsearchClient client, int maxActions, int concurrency, MeterRegistry registry) {
    this.client = client;
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
    this.rejected = Counter.builder("sextant_es_documents_rejected")
        .description("documents Elasticsearch refused for good (4xx); dropped").register(registry);
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
      List<Doc> todo = docs;
      for (int attempt = 1; ; attempt++) {
        List<Doc> pushedBack = sendOnce(todo, written);
        if (pushedBack.isEmpty()) {
          return;
        }
        if (attempt == MAX_ATTEMPTS) {
          throw new IllegalStateException(pushedBack.size() + " documents still pushed back after "
              + MAX_ATTEMPTS + " attempts");
        }
        retries.increment(pushedBack.size());
        sleep(FIRST_BACKOFF_MILLIS << (2 * (attempt - 1)));
        todo = pushedBack;
      }
    } catch (RuntimeException e) {
      failedRequests.increment();
      throw e;
    } finally {
      latency.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
    }
  }

  /** Sends one request; returns the documents to resend. */
  private List<Doc> sendOnce(List<Doc> docs, Counter written) {
    List<BulkOperation> ops = new ArrayList<>(docs.size());
    Long now = System.currentTimeMillis();
    for (Doc d : docs) {
      if (d.source().containsKey(WRITTEN)) {
        d.source().put(WRITTEN, now);
      }
      ops.add(BulkOperation.of(o -> o.index(i -> i.index(d.index()).id(d.id()).document(d.source()))));
    }
    BulkResponse r;
    try {
      r = client.bulk(b -> b.operations(ops));
    } catch (IOException e) {
      throw new UncheckedIOException("bulk request failed", e);
    }
    if (!r.errors()) {
      written.increment(docs.size());
      return List.of();
    }
    List<Doc> again = new ArrayList<>();
    List<BulkResponseItem> items = r.items();
    BulkResponseItem firstRefused = null;
    int refused = 0;
    for (int i = 0; i < items.size(); i++) {
      BulkResponseItem item = items.get(i);
      if (item.error() == null) {
        written.increment();
      } else if (item.status() == 429 || item.status() >= 500) {
        again.add(docs.get(i));
      } else {
        refused++;
        firstRefused = firstRefused == null ? item : firstRefused;
      }
    }
    if (refused > 0) {
      rejected.increment(refused);
      LOG.error("Elasticsearch refused {} documents for good, dropped; the first, {} in {} ({}): {}", refused,
          firstRefused.id(), firstRefused.index(), firstRefused.status(), firstRefused.error().reason());
    }
    return again;
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
