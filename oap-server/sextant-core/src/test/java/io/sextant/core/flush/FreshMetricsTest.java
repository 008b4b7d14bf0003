package io.sextant.core.flush;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Layer;
import io.sextant.api.storage.ForwardingStorageComponent;
import io.sextant.api.storage.MetricPartial;
import io.sextant.api.storage.MetricsStore;
import io.sextant.api.storage.PartialRow;
import io.sextant.api.storage.StorageComponent;
import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.aggregate.Aggregator;
import io.sextant.core.aggregate.AggregatorLimits;
import io.sextant.core.dispatch.RecordKindDispatcher;
import io.sextant.core.metric.MetricCatalog;
import io.sextant.core.metric.MetricDefinition;
import io.sextant.core.metric.MetricFamilies;
import io.sextant.core.query.QueryServices;
import io.sextant.core.query.mqe.MqeEntity;
import io.sextant.storage.memory.MemoryStorage;
import io.sextant.storage.memory.MemoryStorageConfig;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Fresh reads answer exactly what storage answers once everything is flushed: with data in every
 * place at once (live accumulators, queued rows, a batch being written, storage), late records in
 * a closed minute, several collectors on one store, and collection and writing running under the
 * reads.
 */
class FreshMetricsTest {
  private static final long MINUTE_MILLIS = 60_000;
  private final MetricCatalog catalog = MetricFamilies.catalog(100);
  private final TimeBuckets buckets = new TimeBuckets(ZoneOffset.UTC, Clock.systemUTC());
  private final MemoryStorage memory = new MemoryStorage(new MemoryStorageConfig(1_000_000));
  private final GatedStorage storage = new GatedStorage(memory);

  @Test
  void everyPlaceAtOnceReadsAsTheFlushedStore() throws Exception {
    Aggregator aggregator = aggregator();
    Flusher flusher = flusher(aggregator, "c1", storage);
    long now = System.currentTimeMillis();
    long old = now - 3 * MINUTE_MILLIS; // closes at the next collection (grace 1 minute)

    offer(aggregator, old, "a", 10, 20);
    flusher.flush(false); // storage: the old minute, sealed
    offer(aggregator, old, "a", 5, 30); // late: a new accumulator of a closed minute
    offer(aggregator, now, "b", 7, 40);
    offer(aggregator, now, "c", 3, 900);
    flusher.collect(false, true); // queued: the late accumulator (closed) and the open minute

    storage.gate();
    Thread writing = new Thread(flusher::write);
    writing.start();
    assertThat(storage.entered.await(10, TimeUnit.SECONDS)).as("the write is in flight").isTrue();
    offer(aggregator, now, "b", 4, 50);
    offer(aggregator, old, "a", 2, 60); // a second late accumulator
    flusher.collect(false, true); // queued while the batch is in flight: newer versions of b's rows
    offer(aggregator, now, "b", 1, 70); // only in the aggregator
    offer(aggregator, now, "d", 6, 80);

    MetricsStore fresh = new FreshMetrics(flusher, storage::metrics);
    long lo = buckets.minuteBucket(old - MINUTE_MILLIS);
    long hi = buckets.minuteBucket(now + MINUTE_MILLIS);
    Map<String, List<String>> before = readAll(fresh, lo, hi);
    Double freshCpm = cpm(new FreshStorage(storage, flusher), "b", buckets.minuteBucket(now));

    storage.open();
    writing.join();
    flusher.close();
    Map<String, List<String>> after = readAll(memory.metrics(), lo, hi);

    assertThat(after.get("service_cpm")).as("the scenario reached storage").isNotEmpty();
    assertThat(before).isEqualTo(after);
    assertThat(freshCpm).isEqualTo(12.0).isEqualTo(cpm(memory, "b", buckets.minuteBucket(now)));
  }

  @Test
  void eachCollectorSeesItsOwnAtOnceAndTheOthersAfterItsWrite() {
    Aggregator first = aggregator();
    Aggregator second = aggregator();
    Flusher one = flusher(first, "one", storage);
    Flusher two = flusher(second, "two", storage);
    StorageComponent viewOne = new FreshStorage(storage, one);
    StorageComponent viewTwo = new FreshStorage(storage, two);
    long now = System.currentTimeMillis();
    long minute = buckets.minuteBucket(now);

    offer(first, now, "s", 3, 10);
    offer(second, now, "s", 4, 10);
    assertThat(cpm(viewOne, "s", minute)).isEqualTo(3.0);
    assertThat(cpm(viewTwo, "s", minute)).isEqualTo(4.0);

    two.flush(false);
    assertThat(cpm(viewOne, "s", minute)).as("the other's data once it wrote").isEqualTo(7.0);
    offer(first, now, "s", 1, 10);
    offer(second, now, "s", 2, 10);
    assertThat(cpm(viewOne, "s", minute)).as("own data at once, the other's as of its write").isEqualTo(8.0);
    assertThat(cpm(viewTwo, "s", minute)).isEqualTo(6.0);

    one.close();
    two.close();
    assertThat(cpm(memory, "s", minute)).isEqualTo(10.0);
    assertThat(cpm(viewOne, "s", minute)).isEqualTo(10.0);
    assertThat(readAll(new FreshMetrics(one, storage::metrics), minute, minute))
        .isEqualTo(readAll(memory.metrics(), minute, minute));
  }

  /**
   * Bursts of records, late ones too into a minute that closes at every collection, then a read,
   * while the flusher collects and writes on its own threads: every read counts exactly the
   * records accepted, so no version is lost or counted twice on its way from aggregator to storage.
   */
  @Test
  void readsNeverMissRecordsMovingToStorage() {
    Aggregator aggregator = aggregator();
    Flusher flusher = new Flusher(aggregator, storage, buckets, new FlusherConfig(30, 10, 0, 1, 64L << 20), "c",
        new SimpleMeterRegistry());
    MetricsStore fresh = new FreshMetrics(flusher, storage::metrics);
    long now = System.currentTimeMillis();
    long lo = buckets.minuteBucket(now - 5 * MINUTE_MILLIS);
    long hi = buckets.minuteBucket(now + MINUTE_MILLIS);
    flusher.start();
    long accepted = 0;
    int reads = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
    for (int i = 0; System.nanoTime() < deadline; i++) {
      long t = i % 3 == 0 ? now - 3 * MINUTE_MILLIS : System.currentTimeMillis();
      offer(aggregator, t, "x" + i % 500, 1, 10 + i % 50); // many entities: collections take a while
      accepted++;
      if (i % 50 == 0) {
        assertThat(calls(fresh.read("service_cpm", null, Step.MINUTE, lo, hi))).as("read %d", reads)
            .isEqualTo(accepted);
        reads++;
      }
    }
    flusher.close();
    assertThat(reads).isGreaterThan(10);
    assertThat(calls(memory.metrics().read("service_cpm", null, Step.MINUTE, lo, hi))).isEqualTo(accepted);
    assertThat(calls(fresh.read("service_cpm", null, Step.MINUTE, lo, hi))).isEqualTo(accepted);
  }

  /** Calls in service cpm partials (each call feeds its server-side service once). */
  private static long calls(List<MetricPartial> partials) {
    return partials.stream().mapToLong(p -> p.values()[0]).sum();
  }

  /** Every metric's partials, all entities, and each entity alone, as comparable text. */
  private Map<String, List<String>> readAll(MetricsStore store, long lo, long hi) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (MetricDefinition def : catalog.all()) {
      List<MetricPartial> all = store.read(def.name(), null, Step.MINUTE, lo, hi);
      out.put(def.name(), text(all));
      TreeSet<String> ids = new TreeSet<>();
      all.forEach(p -> ids.add(p.entityId()));
      for (String id : ids) {
        out.put(def.name() + "@" + id, text(store.read(def.name(), List.of(id), Step.MINUTE, lo, hi)));
      }
      if (!ids.isEmpty()) {
        out.put(def.name() + "@all", text(store.read(def.name(), ids, Step.MINUTE, lo, hi)));
      }
    }
    return out;
  }

  private static List<String> text(List<MetricPartial> partials) {
    List<String> out = new ArrayList<>();
    for (MetricPartial p : partials) {
      out.add(p.metric() + "|" + p.entityId() + "|" + p.step() + "|" + p.bucket() + "|" + p.writerId() + "|"
          + p.sequence() + "|" + Arrays.toString(p.values()) + "|"
          + (p.sketch() == null ? "-" : Base64.getEncoder().encodeToString(p.sketch())));
    }
    out.sort(null);
    return out;
  }

  private Double cpm(StorageComponent store, String service, long minute) {
    return QueryServices.over(store, catalog, buckets).metrics()
        .read("service_cpm", Map.of(), new MqeEntity(service, true, null, null, null, null, true, null, null, null),
            List.of(minute), Step.MINUTE)
        .get(0).values()[0];
  }

  private Aggregator aggregator() {
    return new Aggregator(catalog, RecordKindDispatcher.standard(10_000), buckets,
        new AggregatorLimits(100_000, 60, 10), new SimpleMeterRegistry());
  }

  private Flusher flusher(Aggregator aggregator, String id, StorageComponent store) {
    return new Flusher(aggregator, store, buckets, new FlusherConfig(60_000, 60_000, 0, 1, 64L << 20), id,
        new SimpleMeterRegistry());
  }

  private static void offer(Aggregator aggregator, long time, String server, int calls, int latency) {
    for (int i = 0; i < calls; i++) {
      aggregator.offer(new CallRecord(time, time + latency, "client", "client-0", server, server + "-0",
          "GET:/" + (i % 2), latency, i % 4 == 0 ? 500 : 200, i % 4 != 0, CallProtocol.HTTP, DetectPoint.SERVER, "",
          "", 100, 100, Layer.MESH, Map.of(), Map.of()));
    }
  }

  /** The memory store with a gate: while closed, the next metric write waits inside the store. */
  private static final class GatedStorage extends ForwardingStorageComponent {
    final MemoryStorage delegate;
    final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private volatile boolean gated;

    GatedStorage(MemoryStorage delegate) {
      this.delegate = delegate;
    }

    void gate() {
      gated = true;
    }

    void open() {
      gated = false;
      release.countDown();
    }

    private final MetricsStore metrics = new MetricsStore() {
      @Override
      public void write(List<PartialRow> rows) {
        if (gated) {
          entered.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
        delegate.metrics().write(rows);
      }

      @Override
      public List<MetricPartial> read(String metric, Collection<String> ids, Step step, long start, long end) {
        return delegate.metrics().read(metric, ids, step, start, end);
      }
    };

    @Override
    protected StorageComponent delegate() {
      return delegate;
    }

    @Override
    public MetricsStore metrics() {
      return metrics;
    }

    @Override
    public void close() {} // the test closes the shared memory store itself
  }
}
