package io.sextant.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Layer;
import io.sextant.api.receiver.Admission;
import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.aggregate.Aggregator;
import io.sextant.core.aggregate.AggregatorLimits;
import io.sextant.core.compact.Compactor;
import io.sextant.core.dispatch.RecordKindDispatcher;
import io.sextant.core.flush.Flusher;
import io.sextant.core.flush.FlusherConfig;
import io.sextant.core.metric.MetricCatalog;
import io.sextant.core.metric.MetricDefinition;
import io.sextant.core.metric.MetricFamilies;
import io.sextant.core.query.MetricQueries;
import io.sextant.core.query.QueryServices;
import io.sextant.core.query.mqe.MqeEntity;
import io.sextant.core.query.mqe.Series;
import io.sextant.storage.memory.MemoryStorage;
import io.sextant.storage.memory.MemoryStorageConfig;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The share-nothing rule: the same records split over N collectors (each with its own aggregator
 * and flusher, one shared store) must answer exactly what one collector answers, for every metric
 * of the table, in minute, hour and day buckets, including late records that reopen closed minutes,
 * and so must the same store after its closed minutes, hours and days are compacted.
 */
class CollectorsMergeTest {
  private final MetricCatalog catalog = MetricFamilies.catalog(100);
  private final TimeBuckets buckets = new TimeBuckets(ZoneOffset.UTC, Clock.systemUTC());
  private final long now = System.currentTimeMillis();

  private List<CallRecord> traffic() {
    return traffic(5);
  }

  /** Calls spread over the last {@code minutes}, so some minutes are closed and some open. */
  private List<CallRecord> traffic(int minutes) {
    Random random = new Random(42);
    List<CallRecord> out = new ArrayList<>();
    String[] services = {"a", "b", "c", "d"};
    for (int i = 0; i < 5000; i++) {
      String src = services[random.nextInt(3)];
      String dst = services[1 + random.nextInt(3)];
      long t = now - random.nextInt(minutes * 60_000);
      boolean ok = random.nextInt(10) > 0;
      out.add(new CallRecord(t, t + 10, src, src + "-" + random.nextInt(2), dst, dst + "-" + random.nextInt(3),
          "GET:/e" + random.nextInt(5), random.nextInt(2000), ok ? 200 : 503, ok, CallProtocol.HTTP,
          random.nextBoolean() ? DetectPoint.CLIENT : DetectPoint.SERVER, "mTLS", "", random.nextInt(5000),
          random.nextInt(5000), Layer.MESH, Map.of(), Map.of()));
    }
    return out;
  }

  private MetricQueries run(int collectors, List<CallRecord> records) {
    return run(collectors, records, new MemoryStorage(new MemoryStorageConfig(10_000_000)));
  }

  private MetricQueries run(int collectors, List<CallRecord> records, MemoryStorage storage) {
    List<Aggregator> aggregators = new ArrayList<>();
    List<Flusher> flushers = new ArrayList<>();
    for (int c = 0; c < collectors; c++) {
      Aggregator a = new Aggregator(catalog, RecordKindDispatcher.standard(10_000), buckets,
          new AggregatorLimits(1_000_000, 240, 10), new SimpleMeterRegistry());
      aggregators.add(a);
      flushers.add(new Flusher(a, storage, buckets, new FlusherConfig(1000, 1000, 0, 1, 64L << 20), "c" + c,
          new SimpleMeterRegistry()));
    }
    for (int i = 0; i < records.size(); i++) {
      assertThat(aggregators.get(i % collectors).offer(records.get(i))).isEqualTo(Admission.ACCEPTED);
      if (i % 1000 == 999) {
        flushers.forEach(f -> f.flush(false)); // closes old minutes; later records reopen them
      }
    }
    flushers.forEach(Flusher::close);
    return QueryServices.over(storage, catalog).metrics();
  }

  @Test
  void threeCollectorsAnswerExactlyWhatOneAnswers() {
    List<CallRecord> records = traffic();
    assertSameAnswers(records, run(1, records), run(3, records), 6);
  }

  @Test
  void compactedMinutesAnswerExactlyWhatOneCollectorAnswers() {
    List<CallRecord> records = traffic();
    MemoryStorage storage = new MemoryStorage(new MemoryStorageConfig(10_000_000));
    MetricQueries three = run(3, records, storage);
    int before = storage.metrics().read("service_cpm", null, Step.MINUTE, 0, Long.MAX_VALUE).size();
    // Each collector its share; one with a stale roster (two collectors) compacts a half again.
    List<String> roster = List.of("c0", "c1", "c2");
    for (String id : roster) {
      new Compactor(storage::metrics, catalog, buckets, () -> roster, id, 0, 10, new SimpleMeterRegistry())
          .runOnce();
    }
    new Compactor(storage::metrics, catalog, buckets, () -> List.of("c0", "c1"), "c1", 0, 10,
        new SimpleMeterRegistry()).runOnce();
    int after = storage.metrics().read("service_cpm", null, Step.MINUTE, 0, Long.MAX_VALUE).size();
    assertThat(after).as("partials before %d", before).isLessThan(before);
    assertThat(storage.metrics().read("service_cpm", null, Step.MINUTE, 0, Long.MAX_VALUE))
        .as("closed minutes: one partial per entity and minute").extracting(p -> p.entityId() + "@" + p.bucket())
        .doesNotHaveDuplicates();
    assertSameAnswers(records, run(1, records), three, 6);
  }

  @Test
  void compactedHoursAndDaysAnswerExactlyWhatOneCollectorAnswers() {
    List<CallRecord> records = traffic(180); // three hours back: every hour but the current one final
    MemoryStorage storage = new MemoryStorage(new MemoryStorageConfig(10_000_000));
    MetricQueries three = run(3, records, storage);
    List<String> roster = List.of("c0", "c1", "c2");
    List<String> before = storage.metrics().read("service_cpm", null, Step.HOUR, 0, Long.MAX_VALUE).stream()
        .map(p -> p.entityId() + "@" + p.bucket()).toList();
    assertThat(before).as("before: a partial per collector").hasSizeGreaterThan(2 * new HashSet<>(before).size());
    for (String id : roster) {
      new Compactor(storage::metrics, catalog, buckets, () -> roster, id, 0, 200, new SimpleMeterRegistry())
          .runOnce();
    }
    for (Step step : List.of(Step.HOUR, Step.DAY)) {
      assertThat(storage.metrics().read("service_cpm", null, step, 0, Long.MAX_VALUE))
          .as("%s: one partial per entity and bucket", step).extracting(p -> p.entityId() + "@" + p.bucket())
          .doesNotHaveDuplicates();
    }
    assertSameAnswers(records, run(1, records), three, 200);
  }

  private void assertSameAnswers(List<CallRecord> records, MetricQueries one, MetricQueries three, int minutesBack) {
    long end = buckets.minuteBucket(now);
    long start = TimeBuckets.plus(end, Step.MINUTE, -minutesBack);
    List<Long> minutes = TimeBuckets.range(start, end, Step.MINUTE, 300);
    List<Long> hours = TimeBuckets.range(TimeBuckets.rollup(start, Step.HOUR), TimeBuckets.rollup(end, Step.HOUR),
        Step.HOUR, 10);
    List<Long> days = TimeBuckets.range(TimeBuckets.rollup(start, Step.DAY), TimeBuckets.rollup(end, Step.DAY),
        Step.DAY, 10);
    int compared = 0;
    for (MetricDefinition def : catalog.all()) {
      for (MqeEntity entity : entities()) {
        for (var range : List.of(Map.entry(Step.MINUTE, minutes), Map.entry(Step.HOUR, hours),
            Map.entry(Step.DAY, days))) {
          List<Series> a;
          try {
            a = one.read(def.name(), Map.of(), entity, range.getValue(), range.getKey());
          } catch (RuntimeException wrongEntityKind) {
            continue;
          }
          List<Series> b = three.read(def.name(), Map.of(), entity, range.getValue(), range.getKey());
          for (int s = 0; s < a.size(); s++) {
            assertThat(Arrays.asList(b.get(s).values())).as(def.name() + " " + entity + " " + range.getKey())
                .isEqualTo(Arrays.asList(a.get(s).values()));
            compared += Arrays.stream(a.get(s).values()).filter(v -> v != null).count();
          }
        }
      }
    }
    assertThat(compared).as("non-empty points compared").isGreaterThan(500);
    // And the totals are the records that went in: every server-side call to b counted once.
    long serverCallsToB = records.stream()
        .filter(r -> r.destService().equals("b") && r.detectPoint() == DetectPoint.SERVER).count();
    double sum = 0;
    for (Double v : one.read("service_cpm", Map.of(), entities().get(1), minutes, Step.MINUTE).get(0).values()) {
      sum += v == null ? 0 : v;
    }
    assertThat(sum).isEqualTo(serverCallsToB);
  }

  private static List<MqeEntity> entities() {
    return List.of(
        new MqeEntity("a", true, "a-0", "GET:/e1", null, "b", true, "b-1", null, null),
        new MqeEntity("b", true, "b-1", "GET:/e2", null, "c", true, "c-2", null, null),
        new MqeEntity("c", true, "c-0", "GET:/e0", null, "d", true, "d-0", null, null));
  }
}
