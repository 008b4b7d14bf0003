package io.sextant.core.flush;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Layer;
import io.sextant.api.model.Scope;
import io.sextant.api.storage.Edge;
import io.sextant.api.storage.ServiceMeta;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.aggregate.Aggregator;
import io.sextant.core.aggregate.AggregatorLimits;
import io.sextant.core.dispatch.RecordKindDispatcher;
import io.sextant.core.metric.MetricFamilies;
import io.sextant.storage.memory.MemoryStorage;
import io.sextant.storage.memory.MemoryStorageConfig;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * New services and edges are written within a closed-collection interval, though the open-minute
 * interval is a minute; traffic between known services waits for the interval.
 */
class NewcomersTest {
  private final TimeBuckets buckets = new TimeBuckets(ZoneOffset.UTC, Clock.systemUTC());
  private final MemoryStorage storage = new MemoryStorage(new MemoryStorageConfig(1_000_000));
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final Aggregator aggregator = new Aggregator(MetricFamilies.catalog(100),
      RecordKindDispatcher.standard(10_000), buckets, new AggregatorLimits(100_000, 60, 10), registry);
  private final Flusher flusher =
      new Flusher(aggregator, storage, buckets, new FlusherConfig(60_000, 100, 60_000, 1, 64L << 20), "c", registry);

  @AfterEach
  void close() {
    flusher.close();
    storage.close();
  }

  @Test
  void newServicesAndEdgesShowWithinSecondsKnownTrafficWaitsForTheInterval() throws Exception {
    flusher.start();
    long minute = buckets.currentMinuteBucket();
    call("a", "b");
    await(() -> names(storage.metadata().services()).contains("b")); // listed: it reported the server side
    await(() -> !edges(minute).isEmpty());
    double early = newcomerCollections();
    assertThat(early).isGreaterThanOrEqualTo(1);

    // Known services: nothing new to show, so no collection before the interval.
    call("a", "b");
    TimeUnit.MILLISECONDS.sleep(600);
    assertThat(newcomerCollections()).isEqualTo(early);

    // A new edge between known services is a newcomer too, and so is a new service.
    call("b", "a");
    call("a", "c");
    await(() -> edges(minute).size() >= 3 && names(storage.metadata().services()).contains("c"));
    assertThat(newcomerCollections()).isGreaterThan(early);
  }

  private List<Edge> edges(long minute) {
    return storage.topology().read(Scope.SERVICE, minute, minute).stream()
        .filter(e -> e.detectPoint() == DetectPoint.SERVER).toList();
  }

  private double newcomerCollections() {
    return registry.counter("sextant_flush_newcomer_collections").count();
  }

  private static List<String> names(List<ServiceMeta> services) {
    return services.stream().map(ServiceMeta::name).toList();
  }

  private void call(String source, String dest) {
    long now = System.currentTimeMillis();
    aggregator.offer(new CallRecord(now, now + 10, source, source + "-0", dest, dest + "-0", "GET:/x", 10, 200,
        true, CallProtocol.HTTP, DetectPoint.SERVER, "", "", 100, 100, Layer.MESH, Map.of(), Map.of()));
  }

  /** Waits up to 3 s: well under the one-minute interval, so only an early collection passes. */
  private static void await(Supplier<Boolean> condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
    while (!condition.get()) {
      assertThat(System.nanoTime()).as("condition met within 3 s").isLessThan(deadline);
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }
}
