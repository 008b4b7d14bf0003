package io.sextant.core.flush;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.model.Layer;
import io.sextant.api.model.Scope;
import io.sextant.api.time.Step;
import io.sextant.core.aggregate.EntityRef;
import io.sextant.core.aggregate.Snapshot;
import io.sextant.core.metric.EncodedState;
import io.sextant.core.metric.MetricFamilies;
import io.sextant.core.metric.MetricGroup;
import io.sextant.core.metric.MetricState;
import io.sextant.core.metric.Source;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Hour roll-ups of minutes that close at once (a client replaying past hours). */
class RollupsTest {
  private final MetricGroup group = MetricFamilies.catalog(100).group(Source.CALL, Scope.SERVICE);
  private final EntityRef service =
      EntityRef.service("YQ==.1", Layer.MESH, "a");
  private final AtomicLong sequences = new AtomicLong();
  private final Rollups hours = new Rollups(Step.HOUR, sequences::incrementAndGet);

  private Snapshot closedMinute(long minute, long sequence, long calls) {
    MetricState[] states = group.newStates();
    states[0].a = calls; // service_cpm: the group's first metric
    return new Snapshot(group, service, minute, sequence, EncodedState.of(states), 0, 0, 0, 0, true);
  }

  @Test
  void aFinalHourWaitsForTheDueTimeAndIsWrittenOnceWithAllItsMinutes() {
    long finalBefore = 2026112211L; // hour 10 is over
    hours.update(closedMinute(202611221001L, 1, 5));
    assertThat(hours.drain(finalBefore, false, false)).isEmpty();
    hours.update(closedMinute(202611221002L, 2, 7));
    assertThat(hours.drain(finalBefore, false, false)).isEmpty();

    List<Rollups.Rollup> written = hours.drain(finalBefore, false, true);
    assertThat(written).hasSize(1);
    assertThat(written.get(0).bucket()).isEqualTo(2026112210L);
    assertThat(written.get(0).states()[0].a).isEqualTo(12);
    assertThat(hours.drain(finalBefore, false, true)).as("final: forgotten once written").isEmpty();

    // A minute closing later into the forgotten hour is a new partial with its own sequence.
    hours.update(closedMinute(202611221003L, 3, 1));
    List<Rollups.Rollup> late = hours.drain(finalBefore, false, true);
    assertThat(late).hasSize(1);
    assertThat(late.get(0).sequence()).isNotEqualTo(written.get(0).sequence());
    assertThat(late.get(0).states()[0].a).isEqualTo(1);
  }

  @Test
  void anOpenHourIsRewrittenEveryDueTimeAndKept() {
    long finalBefore = 2026112210L; // hour 10 still open
    hours.update(closedMinute(202611221001L, 1, 5));
    assertThat(hours.drain(finalBefore, false, true)).hasSize(1);
    hours.update(closedMinute(202611221002L, 2, 7));
    List<Rollups.Rollup> again = hours.drain(finalBefore, false, true);
    assertThat(again).hasSize(1);
    assertThat(again.get(0).states()[0].a).isEqualTo(12);
  }
}
