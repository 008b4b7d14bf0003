package io.sextant.server.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Each address has its own second of messages; past it, the wait is what the excess costs at the rate. */
class PeerMessageRateTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final PeerMessageRate rate = new PeerMessageRate(100, 2, registry, now::get);

  private static InetAddress peer(int last) throws Exception {
    return InetAddress.getByAddress(new byte[] {10, 0, 0, (byte) last});
  }

  private static long millis(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }

  @Test
  void aSecondsWorthPassesAtOnceAndTheRestWaitsItsTurn() throws Exception {
    for (int i = 0; i < 100; i++) {
      assertThat(rate.reserve(peer(1), 1)).isZero();
    }
    assertThat(millis(rate.reserve(peer(1), 1))).isEqualTo(10);
    assertThat(millis(rate.reserve(peer(1), 1))).isEqualTo(20);
    assertThat(rate.reserve(peer(2), 1)).as("another address has its own budget").isZero();
    now.addAndGet(TimeUnit.SECONDS.toNanos(2));
    assertThat(rate.reserve(peer(1), 1)).as("the debt paid, the budget refilled").isZero();
    assertThat(registry.get("sextant_grpc_throttled_messages").counter().count()).isEqualTo(2);
    assertThat(registry.get("sextant_grpc_throttle_delay_seconds").counter().count()).isCloseTo(0.03, within());
  }

  @Test
  void budgetsOfIdlePeersAreForgottenPastTheBound() throws Exception {
    rate.reserve(peer(1), 1);
    rate.reserve(peer(2), 1);
    now.addAndGet(TimeUnit.SECONDS.toNanos(61));
    rate.reserve(peer(3), 1);
    assertThat(rate.peers()).isEqualTo(1);
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(1e-6);
  }
}
