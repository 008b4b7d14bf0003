package io.sextant.core.alarm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Layer;
import io.sextant.api.storage.RecordQuery;
import io.sextant.api.storage.StoredRecord;
import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.aggregate.Aggregator;
import io.sextant.core.aggregate.AggregatorLimits;
import io.sextant.core.alarm.hook.HookDispatcher;
import io.sextant.core.dispatch.RecordKindDispatcher;
import io.sextant.core.flush.Flusher;
import io.sextant.core.flush.FlusherConfig;
import io.sextant.core.metric.MetricCatalog;
import io.sextant.core.metric.MetricFamilies;
import io.sextant.storage.memory.MemoryStorage;
import io.sextant.storage.memory.MemoryStorageConfig;
import io.sextant.testkit.poll.Poll;
import io.sextant.testkit.time.MovingClock;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two collectors' engines on one store decide every minute together: the alarm is stored once and
 * each hook is called once for the firing and once for the recovery.
 */
class AlarmEngineTest {
  private static final long MINUTE = 60_000;
  private final MetricCatalog catalog = MetricFamilies.catalog(500);
  private final TimeBuckets buckets = new TimeBuckets(ZoneOffset.UTC, Clock.systemUTC());
  private final MemoryStorage storage = new MemoryStorage(new MemoryStorageConfig(1_000_000));
  private final List<JsonNode> received = Collections.synchronizedList(new ArrayList<>());
  private final List<HookDispatcher> dispatchers = new ArrayList<>();
  private HttpServer webhook;

  @AfterEach
  void stop() {
    dispatchers.forEach(HookDispatcher::close);
    if (webhook != null) {
      webhook.stop(0);
    }
  }

  @Test
  void twoCollectorsFireAndRecoverEachAlarmExactlyOnce() throws Exception {
    startWebhook();
    long now = System.currentTimeMillis();
    stored(aggregator -> {
      // reviews is slow in minutes -7 to -5, fast after; ratings is always fast.
      for (int m = 7; m >= 2; m--) {
        long t = now - m * MINUTE;
        calls(aggregator, t, "reviews", m >= 5 ? 1500 : 100);
        calls(aggregator, t, "ratings", 100);
      }
    });

    Map<String, Object> rule = new LinkedHashMap<>();
    rule.put("expression", "sum(service_resp_time > 1000) >= 2");
    rule.put("period", 3);
    rule.put("silence-period", 2);
    rule.put("message", "Response time of service {name} is more than 1000ms in 2 minutes of last 3 minutes");
    rule.put("tags", Map.of("level", "WARNING"));
    AlarmSettings settings = AlarmSettings.parse(Map.of("rules", Map.of("service_resp_time_rule", rule),
        "hooks", Map.of("webhook", Map.of("default", Map.of("is-default", true, "urls",
            List.of("http://127.0.0.1:" + webhook.getAddress().getPort() + "/alarm"), "recovery-urls",
            List.of("http://127.0.0.1:" + webhook.getAddress().getPort() + "/alarm"), "headers",
            Map.of("Authorization", "Bearer hook-token"))))), catalog);
    AlarmEngine first = engine(settings);
    AlarmEngine second = engine(settings);

    ExecutorService both = Executors.newFixedThreadPool(2);
    try {
      for (int m = 7; m >= 2; m--) {
        long minute = buckets.minuteBucket(now - m * MINUTE);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (AlarmEngine engine : List.of(first, second)) {
          done.add(both.submit(() -> {
            go.await();
            engine.evaluate(minute);
            return null;
          }));
        }
        go.countDown();
        for (Future<?> f : done) {
          f.get();
        }
      }
    } finally {
      both.shutdownNow();
    }

    Poll.until("the firing and the recovery delivered", Duration.ofSeconds(10), () -> received.size() >= 2);
    Poll.stays("no duplicate delivered", Duration.ofMillis(300), () -> received.size() == 2);
    assertThat(received).as("one call for the firing, one for the recovery").hasSize(2);
    JsonNode fired = received.get(0).get(0);
    JsonNode recovered = received.get(1).get(0);
    assertThat(fired.get("ruleName").asText()).isEqualTo("service_resp_time_rule");
    assertThat(fired.get("name").asText()).isEqualTo("reviews");
    assertThat(fired.get("scopeId").asInt()).isEqualTo(1);
    assertThat(fired.get("scope").asText()).isEqualTo("SERVICE");
    assertThat(fired.get("alarmMessage").asText())
        .isEqualTo("Response time of service reviews is more than 1000ms in 2 minutes of last 3 minutes");
    assertThat(fired.has("recoveryTime")).isFalse();
    assertThat(fired.get("tags").get(0).get("key").asText()).isEqualTo("level");
    assertThat(fired.get("hooks").get(0).asText()).isEqualTo("webhook.default");
    assertThat(fired.get("expression").asText()).isEqualTo("sum(service_resp_time > 1000) >= 2");
    JsonNode series = AlarmJson.JSON.readTree(fired.get("mqeMetricsSnapshot").get("service_resp_time").asText());
    assertThat(series.get(0).get("values").get(0).get("isEmptyValue").asBoolean()).isTrue();
    assertThat(series.get(0).get("values").get(1).get("doubleValue").asDouble()).isEqualTo(1500.0);
    assertThat(series.get(0).get("values").get(1).get("id").asText())
        .isEqualTo(Long.toString(buckets.minuteBucket(now - 7 * MINUTE)));
    assertThat(recovered.get("uuid").asText()).isEqualTo(fired.get("uuid").asText());
    assertThat(recovered.get("recoveryTime").asLong()).isGreaterThan(fired.get("startTime").asLong() - 1);

    List<StoredRecord> alarms = storage.records().read(new RecordQuery(AlarmRecords.KIND, null, 0, Long.MAX_VALUE,
        List.of(), 100));
    assertThat(alarms).hasSize(1);
    AlarmMessage stored = AlarmRecords.fromRecord(alarms.get(0));
    assertThat(stored.name()).isEqualTo("reviews");
    assertThat(stored.recovered()).isTrue();
    assertThat(stored.snapshot().metrics().get(0).values()).extracting(v -> v.value())
        .as("the window that broke the rule: minutes -8 (no data), -7 and -6").containsExactly(null, 1500.0, 1500.0);
  }

  private AlarmEngine engine(AlarmSettings settings) {
    return engine(settings, storage, 60_000);
  }

  private AlarmEngine engine(AlarmSettings settings, io.sextant.api.storage.StorageComponent store,
      long takeoverMillis) {
    return engine(settings, store, takeoverMillis, 1000, new SimpleMeterRegistry());
  }

  private AlarmEngine engine(AlarmSettings settings, io.sextant.api.storage.StorageComponent store,
      long takeoverMillis, int maxAlarmed, SimpleMeterRegistry registry) {
    return engine(settings, store, takeoverMillis, maxAlarmed, registry, buckets);
  }

  private AlarmEngine engine(AlarmSettings settings, io.sextant.api.storage.StorageComponent store,
      long takeoverMillis, int maxAlarmed, SimpleMeterRegistry registry, TimeBuckets buckets) {
    AlarmRules rules = new AlarmRules(store::management, catalog);
    rules.useFile(settings);
    HookDispatcher dispatcher = new HookDispatcher(100, 3, Duration.ofMillis(50), Duration.ofSeconds(5),
        new SimpleMeterRegistry());
    dispatchers.add(dispatcher);
    return new AlarmEngine(store, new RuleEvaluator(store, catalog, buckets, 10_000), buckets, rules, dispatcher,
        Runnable::run, 0, takeoverMillis, maxAlarmed, registry);
  }

  @Test
  void aDeliveryTheDecidingCollectorCouldNotMakeIsMadeByAnother() throws Exception {
    startWebhook();
    long now = System.currentTimeMillis();
    stored(aggregator -> {
      calls(aggregator, now - 3 * MINUTE, "reviews", 1500);
    });
    Map<String, Object> rule = new LinkedHashMap<>();
    rule.put("expression", "sum(service_resp_time > 1000) >= 1");
    AlarmSettings settings = AlarmSettings.parse(Map.of("rules", Map.of("slow_rule", rule), "hooks",
        Map.of("webhook", Map.of("default", Map.of("is-default", true, "urls",
            List.of("http://127.0.0.1:" + webhook.getAddress().getPort() + "/alarm"), "headers",
            Map.of("Authorization", "Bearer hook-token"))))), catalog);
    // The first collector decides the minute, then cannot store the alarm (as if it died there).
    long minute = buckets.minuteBucket(now - 3 * MINUTE);
    engine(settings, diesBeforeStoringTheAlarm(), 100).evaluate(minute);
    assertThat(received).as("nothing delivered yet").isEmpty();

    // The second collector looks past the takeover time: its clock is 150 ms on.
    TimeBuckets later = new TimeBuckets(ZoneOffset.UTC, Clock.offset(Clock.systemUTC(), Duration.ofMillis(150)));
    engine(settings, storage, 100, 1000, new SimpleMeterRegistry(), later)
        .evaluate(TimeBuckets.plus(minute, Step.MINUTE, 1));
    Poll.until("the alarm delivered", Duration.ofSeconds(10), () -> !received.isEmpty());
    Poll.stays("delivered once", Duration.ofMillis(300), () -> received.size() == 1);
    assertThat(received).as("delivered once, by the second collector").hasSize(1);
    assertThat(received.get(0).get(0).get("startTime").asLong()).isLessThan(System.currentTimeMillis());
    assertThat(storage.records().read(new RecordQuery(AlarmRecords.KIND, null, 0, Long.MAX_VALUE, List.of(), 10)))
        .hasSize(1);
    assertThat(storage.management().list(AlarmState.KIND)).singleElement()
        .satisfies(d -> assertThat(AlarmJson.state(d.body()).pending()).as("the outbox is empty").isEmpty());
  }

  /**
   * The bound docs/alarms.md gives: a dead decider's delivery is made at most takeoverSeconds plus
   * one evaluation tick after its claim, with the defaults (120 s, 5 s). The worst case for a look
   * made once per closed minute, as before: the survivor's ticks fall just before the decider's in
   * the minute, so its look two minutes on finds the claim 119.5 s old, and the next 179.5 s.
   */
  @Test
  void aDeadDecidersDeliveryIsTakenOverWithinTakeoverSecondsAndATick() {
    long takeover = 120_000;
    long tick = 5_000;
    long minuteStart = System.currentTimeMillis() / MINUTE * MINUTE;
    stored(aggregator -> calls(aggregator, minuteStart - 3 * MINUTE, "reviews", 1500));
    AlarmSettings settings = AlarmSettings.parse(Map.of("rules", Map.of("slow_rule",
        Map.of("expression", "sum(service_resp_time > 1000) >= 1"))), catalog);
    MovingClock clock = new MovingClock(0);
    TimeBuckets moving = new TimeBuckets(ZoneOffset.UTC, clock);

    clock.set(minuteStart - 2 * MINUTE + 1_000); // the decider's tick, a second after the minute closed
    long claimed = clock.millis();
    engine(settings, diesBeforeStoringTheAlarm(), takeover, 1000, new SimpleMeterRegistry(), moving)
        .evaluate(buckets.minuteBucket(minuteStart - 3 * MINUTE));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    AlarmEngine survivor = engine(settings, storage, takeover, 1000, registry, moving);
    long takenAt = -1;
    for (long t = minuteStart - MINUTE + 500; takenAt < 0 && t < claimed + 4 * MINUTE; t += tick) {
      clock.set(t); // the survivor's ticks, half a second past each minute
      survivor.tick();
      if (registry.get("sextant_alarm_deliveries_taken_over").counter().count() > 0) {
        takenAt = t;
      }
    }
    assertThat(takenAt - claimed).as("taken over after the claim, in ms").isGreaterThan(takeover)
        .isLessThanOrEqualTo(takeover + tick);
    assertThat(storage.records().read(new RecordQuery(AlarmRecords.KIND, null, 0, Long.MAX_VALUE, List.of(), 10)))
        .hasSize(1);
    assertThat(storage.management().list(AlarmState.KIND)).singleElement()
        .satisfies(d -> assertThat(AlarmJson.state(d.body()).pending()).as("the outbox is empty").isEmpty());
  }

  /** A collector that decides, then dies before storing the alarm (its records store fails). */
  private io.sextant.api.storage.StorageComponent diesBeforeStoringTheAlarm() {
    return new io.sextant.api.storage.ForwardingStorageComponent() {
      @Override
      protected io.sextant.api.storage.StorageComponent delegate() {
        return storage;
      }

      @Override
      public io.sextant.api.storage.RecordStore records() {
        throw new IllegalStateException("this collector died before storing the alarm");
      }
    };
  }

  @Test
  void aRuleBrokenByEveryEntityAlarmsOnlyUpToItsBound() throws Exception {
    startWebhook();
    long now = System.currentTimeMillis();
    stored(aggregator -> {
      for (String service : List.of("a", "b", "c", "d", "e")) {
        calls(aggregator, now - 3 * MINUTE, service, 1500);
      }
    });
    AlarmSettings settings = AlarmSettings.parse(Map.of("rules", Map.of("slow_rule",
        Map.of("expression", "sum(service_resp_time > 1000) >= 1"))), catalog);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();

    engine(settings, storage, 60_000, 3, registry).evaluate(buckets.minuteBucket(now - 3 * MINUTE));

    assertThat(storage.management().list(AlarmState.KIND)).hasSize(3);
    assertThat(storage.records().read(new RecordQuery(AlarmRecords.KIND, null, 0, Long.MAX_VALUE, List.of(), 10)))
        .hasSize(3);
    assertThat(registry.get("sextant_alarm_entities_refused").counter().count()).isEqualTo(2);
  }

  @Test
  void aBurnRateRuleNeedsBothWindowsBurning() throws Exception {
    long now = System.currentTimeMillis();
    stored(aggregator -> {
      // steady: 2% errors for the whole hour; burst: 20% errors in the last 3 minutes only;
      // recovered: 2% errors until 10 minutes ago, none since.
      for (int m = 60; m >= 1; m--) {
        long t = now - m * MINUTE;
        errors(aggregator, t, "steady", 100, 2);
        errors(aggregator, t, "burst", 100, m <= 3 ? 20 : 0);
        errors(aggregator, t, "recovered", 100, m > 10 ? 2 : 0);
      }
    });
    String burn = "sum(service_cpm * (10000 - service_sla)) / sum(service_cpm) > 144";
    Map<String, Object> rule = new LinkedHashMap<>();
    rule.put("windows", List.of(Map.of("expression", burn, "period", 60), Map.of("expression", burn, "period", 5)));
    AlarmSettings settings = AlarmSettings.parse(Map.of("rules", Map.of("fast_burn_rule", rule)), catalog);
    assertThat(settings.rules().get(0).period()).isEqualTo(60);

    engine(settings).evaluate(buckets.minuteBucket(now - MINUTE));

    assertThat(storage.records().read(new RecordQuery(AlarmRecords.KIND, null, 0, Long.MAX_VALUE, List.of(), 10)))
        .extracting(r -> AlarmRecords.fromRecord(r).name())
        .as("1.44% of the hour's calls failing, and of the last 5 minutes' (14.4 times a 99.9% budget)")
        .containsExactly("steady");
  }

  private static void errors(Aggregator aggregator, long time, String server, int calls, int failed) {
    for (int i = 0; i < calls; i++) {
      boolean ok = i >= failed;
      aggregator.offer(new CallRecord(time, time + 20, "client", "client-0", server, server + "-0", "GET:/", 20,
          ok ? 200 : 503, ok, CallProtocol.HTTP, DetectPoint.SERVER, "", "", 100, 100, Layer.MESH, Map.of(),
          Map.of()));
    }
  }

  /** Stores what {@code traffic} offers, as one collector does once its minutes are closed. */
  private void stored(java.util.function.Consumer<Aggregator> traffic) {
    Aggregator aggregator = new Aggregator(catalog, RecordKindDispatcher.standard(10_000), buckets,
        new AggregatorLimits(100_000, 60, 10), new SimpleMeterRegistry());
    traffic.accept(aggregator);
    new Flusher(aggregator, storage, buckets, new FlusherConfig(60_000, 60_000, 0, 1, 64L << 20), "c1",
        new SimpleMeterRegistry()).flush(true);
  }

  private void startWebhook() throws Exception {
    webhook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    webhook.createContext("/alarm", exchange -> {
      assertThat(exchange.getRequestHeaders().getFirst("Authorization")).isEqualTo("Bearer hook-token");
      received.add(AlarmJson.JSON.readTree(new String(exchange.getRequestBody().readAllBytes(),
          StandardCharsets.UTF_8)));
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    webhook.start();
  }

  private static void calls(Aggregator aggregator, long time, String server, int latency) {
    for (int i = 0; i < 10; i++) {
      aggregator.offer(new CallRecord(time, time + latency, "client", "client-0", server, server + "-0", "GET:/",
          latency, 200, true, CallProtocol.HTTP, DetectPoint.SERVER, "", "", 100, 100, Layer.MESH, Map.of(),
          Map.of()));
    }
  }

}
