package io.sextant.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.Status;
import io.sextant.testkit.elasticsearch.ElasticsearchExtension;
import io.sextant.testkit.poll.Poll;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The deployment we recommend, through an Elasticsearch outage: three collectors started from the
 * configuration the chart renders for Elasticsearch, clients that reach a collector only while its
 * {@code /readyz} answers 200 (as kube-proxy and the headless Service's DNS do), and Elasticsearch
 * frozen with SIGSTOP under load for {@code -Dsextant.outage.seconds} (default 90). Every collector
 * stays ready through it, reports storage down, a fourth collector started in the outage is ready
 * within seconds and takes traffic, and the totals afterwards are exactly what the clients sent.
 */
class ReadinessUnderOutageIT {
  @RegisterExtension
  static final ElasticsearchExtension ES = new ElasticsearchExtension();

  private static final Duration READY = Duration.ofSeconds(120);
  private static final int COLLECTORS = 3;
  private static final int CLIENTS = 3;
  private static final int CALLS_PER_STREAM = 20;

  @TempDir
  static Path dir;

  /** One collector of the Deployment, and how often the balancer found it not ready. */
  private record Collector(RunningSextant sextant, AtomicInteger notReady) implements AutoCloseable {
    Clients clients() {
      return sextant.clients();
    }

    LaunchedDistribution process() {
      return sextant.process();
    }

    @Override
    public void close() throws InterruptedException {
      sextant.close();
    }
  }

  /** A collector with exactly the environment and ConfigMap the chart renders for Elasticsearch. */
  private static Collector start(Helm helm, Path home, String pod) throws Exception {
    return start(helm, home, pod, Map.of());
  }

  private static Collector start(Helm helm, Path home, String pod, Map<String, String> moreEnv) throws Exception {
    Manifests m = Manifests.parse(helm.template("minimal.yaml", "replicaCount=" + COLLECTORS,
        "storage.type=elasticsearch", "storage.elasticsearch.url=" + ES.httpUrl(),
        "ports.grpc=" + RunningSextant.port(), "ports.http=" + RunningSextant.port(), "config.core.timezone=UTC",
        "jvm.heapOpts=-Xms64m -Xmx384m").rendered());
    Map<String, String> env = new HashMap<>(RenderedPod.environment(m, dir.resolve(pod), pod));
    env.putAll(moreEnv);
    return new Collector(RunningSextant.start(home, env, READY), new AtomicInteger());
  }

  @Test
  void collectorsStayReadyThroughAnOutageAndTheTotalsAreExact() throws Exception {
    Helm helm = Helm.required();
    long outageSeconds = Long.getLong("sextant.outage.seconds", 90);
    Path home = ShippedTarball.unpack(dir);
    List<Collector> collectors = new ArrayList<>();
    List<Collector> late = new ArrayList<>();
    ScheduledExecutorService balancer = Executors.newSingleThreadScheduledExecutor();
    ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
    AtomicBoolean sending = new AtomicBoolean(true);
    AtomicLong sent = new AtomicLong();
    AtomicLong failedStreams = new AtomicLong();
    long firstMinute = System.currentTimeMillis();
    try {
      List<Future<Collector>> starting = new ArrayList<>();
      for (int i = 0; i < COLLECTORS; i++) {
        String pod = "sextant-6f9c7d8b5-c" + i;
        starting.add(clients.submit(() -> start(helm, home, pod)));
      }
      for (Future<Collector> c : starting) {
        collectors.add(c.get(3, TimeUnit.MINUTES));
      }
      // The balancer: which collectors answer /readyz 200 now, polled as kube-proxy's endpoints follow it.
      CopyOnWriteArrayList<Collector> ready = new CopyOnWriteArrayList<>(collectors);
      Future<?> polling = balancer.scheduleWithFixedDelay(() -> collectors.forEach(c -> {
        if (c.clients().status("/readyz") == 200) {
          ready.addIfAbsent(c);
        } else {
          c.notReady().incrementAndGet();
          ready.remove(c);
        }
      }), 0, 500, TimeUnit.MILLISECONDS);
      AtomicInteger next = new AtomicInteger();
      List<Future<?>> senders = new ArrayList<>();
      for (int i = 0; i < CLIENTS; i++) {
        senders.add(clients.submit(() -> {
          while (sending.get()) {
            List<Collector> now = List.copyOf(ready);
            if (!now.isEmpty()) {
              Collector c = now.get(Math.floorMod(next.getAndIncrement(), now.size()));
              Status.Code end = c.clients().mesh("outage-frontend", "outage-backend", System.currentTimeMillis(),
                  CALLS_PER_STREAM);
              if (end == Status.Code.OK) {
                sent.addAndGet(CALLS_PER_STREAM);
              } else {
                failedStreams.incrementAndGet();
              }
            }
            Thread.sleep(50); // paces each client: a stream every 50 ms, the load the outage is judged under
          }
          return null;
        }));
      }

      // Steady before the outage: every collector has written some of the traffic.
      for (Collector c : collectors) {
        Poll.until("traffic written by a collector", Duration.ofSeconds(60),
            () -> c.clients().metric("sextant_flush_partials_written_total") > 0);
      }
      long pid = ES.pid().orElseThrow();
      long sentBeforeOutage = sent.get();
      signal("STOP", pid);
      long stopped = System.nanoTime();
      try {
        // A collector scaled up in the outage, its query warm-up as shipped: nothing in its start waits
        // on storage (it used to fail after 30 s on the templates and restart), and it takes traffic.
        Collector newcomer = start(helm, home, "sextant-6f9c7d8b5-c3", Map.of("SEXTANT_QUERY_WARM_UP_SECONDS", "15"));
        Duration readyAfter = Duration.ofNanos(System.nanoTime() - stopped);
        late.add(newcomer);
        System.out.printf("a collector started with Elasticsearch frozen: ready %d ms after launch%n",
            readyAfter.toMillis());
        assertThat(readyAfter).isLessThan(Duration.ofSeconds(10));
        assertThat(newcomer.clients().get("/readyz?verbose")).startsWith("ready\n");
        assertThat(newcomer.clients().mesh("outage-frontend", "outage-backend", System.currentTimeMillis(),
            CALLS_PER_STREAM)).isEqualTo(Status.Code.OK);
        sent.addAndGet(CALLS_PER_STREAM);
        for (Collector c : collectors) {
          Poll.until("the outage seen by a collector that stays ready", Duration.ofSeconds(60),
              () -> c.clients().get("/metrics").contains("sextant_storage_up 0.0")
                  && c.clients().get("/readyz?verbose").startsWith("ready\n")
                  && c.clients().get("/readyz?verbose").contains("[-] storage down"));
        }
        // The outage lasts its seconds: the time is the point (readiness is watched throughout).
        Thread.sleep(Math.max(0, TimeUnit.SECONDS.toMillis(outageSeconds)
            - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopped)));
      } finally {
        signal("CONT", pid);
      }
      long sentDuringOutage = sent.get() - sentBeforeOutage;
      // Traffic goes on until every collector has storage back (the load continues across the recovery).
      for (Collector c : collectors) {
        Poll.until("storage back for a collector", Duration.ofSeconds(60),
            () -> c.clients().get("/metrics").contains("sextant_storage_up 1.0"));
      }
      for (Collector c : late) {
        Poll.until("storage back for the newcomer", Duration.ofSeconds(60),
            () -> c.clients().get("/metrics").contains("sextant_storage_up 1.0"));
      }
      sending.set(false);
      for (Future<?> f : senders) {
        f.get(60, TimeUnit.SECONDS);
      }
      polling.cancel(false);
      long lastMinute = System.currentTimeMillis();

      assertThat(sentDuringOutage).as("load went on through the outage").isGreaterThan(1000);
      assertThat(failedStreams.get()).as("streams that did not end OK").isZero();
      for (Collector c : collectors) {
        assertThat(c.notReady().get()).as("not-ready answers of a collector during the outage").isZero();
      }
      collectors.addAll(late); // the balancer has stopped reading the list
      late.clear();
      // Each collector writes everything it accepted when it stops; a new one reads it all back.
      for (Collector c : collectors) {
        c.close();
        assertThat(c.process().output()).contains("everything accepted was written");
      }
      collectors.clear();
      Collector reader = start(helm, home, "sextant-6f9c7d8b5-reader");
      collectors.add(reader);
      long total = total(reader, firstMinute, lastMinute);
      System.out.printf("outage of %d s: %d calls sent in all, %d while Elasticsearch was frozen; read back %d%n",
          outageSeconds, sent.get(), sentDuringOutage, total);
      assertThat(total).isEqualTo(sent.get());
    } finally {
      sending.set(false);
      clients.shutdownNow();
      balancer.shutdownNow();
      for (Collector c : collectors) {
        c.close();
      }
      for (Collector c : late) {
        c.close();
      }
    }
  }

  /** Calls to outage-backend over the minutes from {@code from} to {@code to}, as service_cpm answers. */
  private static long total(Collector c, long from, long to) throws Exception {
    long sum = 0;
    for (JsonNode v : c.clients().values("service_cpm", "serviceName: \"outage-backend\", normal: true", from, to)) {
      sum += v.get("value").isNull() ? 0 : v.get("value").asLong();
    }
    return sum;
  }

  private static void signal(String signal, long pid) throws Exception {
    ShippedTarball.run(List.of("kill", "-" + signal, Long.toString(pid)));
  }
}
