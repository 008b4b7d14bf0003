package io.sextant.server.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.component.CheckResult;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Readiness is "can take more data"; storage health is reported beside it. */
class ReadinessTest {
  private double fill;
  private final AtomicReference<CheckResult> storage = new AtomicReference<>(CheckResult.OK);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final Readiness readiness = new Readiness(() -> fill, storage::get, 80, registry);

  private double gauge(String name) {
    return registry.get(name).gauge().value();
  }

  @Test
  void notReadyUntilServingAndOnceDraining() {
    assertThat(readiness.check()).isEqualTo(CheckResult.failed("starting"));
    readiness.serving();
    assertThat(readiness.check().ok()).isTrue();
    readiness.draining();
    assertThat(readiness.check()).isEqualTo(CheckResult.failed("draining"));
    assertThat(gauge("sextant_ready")).isZero();
  }

  @Test
  void storageDownLeavesTheCollectorReadyAndIsReportedApart() {
    readiness.serving();
    storage.set(CheckResult.failed("Elasticsearch unreachable: connect timed out"));
    readiness.probeStorage();
    assertThat(readiness.check().ok()).isTrue();
    assertThat(gauge("sextant_ready")).isEqualTo(1);
    assertThat(gauge("sextant_storage_up")).isZero();
    assertThat(readiness.health().ok()).as("checkHealth still says storage is down").isFalse();
    assertThat(readiness.verbose()).startsWith("ready\n")
        .contains("[-] storage down: Elasticsearch unreachable: connect timed out (not part of readiness)");

    storage.set(CheckResult.OK);
    readiness.probeStorage();
    assertThat(gauge("sextant_storage_up")).isEqualTo(1);
    assertThat(readiness.health().ok()).isTrue();
  }

  @Test
  void aQueueAtTheHighWaterMarkShedsLoadUntilTenPointsBelowIt() {
    readiness.serving();
    fill = 0.79;
    assertThat(readiness.check().ok()).isTrue();
    fill = 0.80;
    assertThat(readiness.check()).isEqualTo(CheckResult.failed("write queue 80% full (high-water mark 80%)"));
    fill = 0.75; // between the marks: stays unready, no flapping
    assertThat(readiness.check().ok()).isFalse();
    assertThat(readiness.verbose()).startsWith("not ready: write queue 75% full")
        .contains("[-] write queue 75% full (high-water mark 80%)");
    fill = 0.69;
    assertThat(readiness.check().ok()).isTrue();
    fill = 0.75;
    assertThat(readiness.check().ok()).as("below the mark again").isTrue();
  }

  @Test
  void aStoreWhoseProbeThrowsIsDown() {
    storage.set(null);
    Readiness throwing = new Readiness(() -> 0, () -> {
      throw new IllegalStateException("client closed");
    }, 90, new SimpleMeterRegistry());
    throwing.serving();
    throwing.probeStorage();
    assertThat(throwing.check().ok()).isTrue();
    assertThat(throwing.health().detail()).contains("client closed");
  }
}
