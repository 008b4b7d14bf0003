package io.sextant.receiver.common;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/** What a client is told about its refused input is short, whatever the input. */
class RejectionsTest {
  @Test
  void aHugeDetailIsShortenedInTheAnswerAndCountedWhole() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Rejections r = new Rejections(ReceiverMetrics.forReceiver("mesh", registry));
    r.add("invalid_name", "service name " + "x".repeat(1_000_000), 3);
    assertThat(r.summary(10, "records")).startsWith("rejected 3 of 10 records; first: invalid_name: service name xxx")
        .endsWith("... (1000013 characters)").hasSizeLessThan(400);
    assertThat(r.count()).isEqualTo(3);
  }
}
