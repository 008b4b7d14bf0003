package io.sextant.core.alarm.hook;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes hook calls off the evaluating thread: at most {@code maxQueued} deliveries at once (past it
 * a delivery is refused and counted, never blocking evaluation), each call retried with doubling
 * backoff up to {@code attempts} times on a network failure, a 429 or a 5xx. Outcomes are counted
 * per hook: {@code sextant_alarm_hook_calls_total{hook,outcome}}.
 */
public final class HookDispatcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HookDispatcher.class);

  private final HttpClient http;
  private final ScheduledExecutorService retries;
  private final int maxQueued;
  private final int attempts;
  private final Duration firstBackoff;
  private final Duration timeout;
  private final MeterRegistry registry;
  private final AtomicInteger queued = new AtomicInteger();
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();

  public HookDispatcher(int maxQueued, int attempts, Duration firstBackoff, Duration timeout,
      MeterRegistry registry) {
    this.maxQueued = maxQueued;
    this.attempts = attempts;
    this.firstBackoff = firstBackoff;
    this.timeout = timeout;
    this.registry = registry;
    this.retries = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "sextant-alarm-hooks");
      t.setDaemon(true);
      return t;
    });
    this.http = HttpClient.newBuilder().connectTimeout(timeout).executor(retries).build();
    Gauge.builder("sextant_alarm_hook_queued", queued, AtomicInteger::get)
        .description("hook deliveries queued or retrying").register(registry);
  }

  /**
   * Delivers every call of one hook; the future completes true when all were answered 2xx, false
   * when one was given up or refused (queue full). Never throws.
   */
  public CompletableFuture<Boolean> deliver(String hookId, List<HookCall> calls) {
    if (queued.incrementAndGet() > maxQueued) {
      queued.decrementAndGet();
      count(hookId, "refused_queue_full");
      LOG.warn("alarm hook {}: {} deliveries already queued, this one is dropped", hookId, maxQueued);
      return CompletableFuture.completedFuture(false);
    }
    CompletableFuture<Boolean> all = CompletableFuture.completedFuture(true);
    for (HookCall call : calls) {
      CompletableFuture<Boolean> one = new CompletableFuture<>();
      attempt(hookId, call, 1, one);
      all = all.thenCombine(one, Boolean::logicalAnd);
    }
    return all.whenComplete((ok, e) -> queued.decrementAndGet());
  }

  private void attempt(String hookId, HookCall call, int attempt, CompletableFuture<Boolean> done) {
    HttpRequest.Builder request = HttpRequest.newBuilder(call.uri()).timeout(timeout)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(call.body()));
    call.headers().forEach(request::header);
    http.sendAsync(request.build(), HttpResponse.BodyHandlers.discarding()).whenComplete((response, error) -> {
      int status = response == null ? -1 : response.statusCode();
      if (error == null && status / 100 == 2) {
        count(hookId, "delivered");
        done.complete(true);
        return;
      }
      boolean retryable = error != null || status == 429 || status / 100 == 5;
      String why = error != null ? error.toString() : "HTTP " + status;
      if (!retryable || attempt >= attempts) {
        count(hookId, retryable ? "gave_up" : "refused");
        LOG.warn("alarm hook {} to {} failed after {} attempt(s): {}", hookId, call.uri(), attempt, why);
        done.complete(false);
        return;
      }
      count(hookId, "retried");
      long delay = firstBackoff.toMillis() << Math.min(attempt - 1, 10);
      try {
        retries.schedule(() -> attempt(hookId, call, attempt + 1, done), delay, TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.RejectedExecutionException stopped) {
        done.complete(false);
      }
    });
  }

  private void count(String hookId, String outcome) {
    counters.computeIfAbsent(hookId + "|" + outcome, k -> Counter.builder("sextant_alarm_hook_calls")
        .description("alarm hook calls by outcome").tag("hook", hookId).tag("outcome", outcome)
        .register(registry)).increment();
  }

  @Override
  public void close() {
    retries.shutdownNow();
  }
}
