package io.sextant.core.topology;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The process registry's memory of what it wrote: one write a minute per entity, bounded. */
class WrittenThisMinuteTest {
  @Test
  void anEntityIsWrittenOnceAMinuteAndAgainAfterAFailedWrite() {
    WrittenThisMinute written = new WrittenThisMinute(1_000);
    assertThat(written.firstIn("process|a", 202611221000L)).isTrue();
    assertThat(written.firstIn("process|a", 202611221000L)).isFalse();
    assertThat(written.firstIn("process|a", 202611221000L)).isFalse();
    assertThat(written.firstIn("process|b", 202611221000L)).isTrue();
    assertThat(written.firstIn("process|a", 202611221001L)).isTrue();
    written.forget("process|a");
    assertThat(written.firstIn("process|a", 202611221001L)).isTrue();
  }

  @Test
  void aFullCacheForgetsEverythingInsteadOfGrowing() {
    WrittenThisMinute written = new WrittenThisMinute(2);
    written.firstIn("a", 1);
    written.firstIn("b", 1);
    assertThat(written.firstIn("c", 1)).isTrue();
    assertThat(written.firstIn("a", 1)).isTrue(); // forgotten: one extra write, never a lost one
  }
}
