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
    return minute(service, minute, sequence, calls, true);
  }

  private Snapshot minute(EntityRef entity, long minute, long sequence, long calls, boolean closed) {
    MetricState[] states = group.newStates();
    states[0].a = calls; // service_cpm: the group's first metric
    return new Snapshot(group, entity, minute, sequence, EncodedState.of(states), 0, 0, 0, 0, closed);
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
    assertThat(written.get(0).states()[0].a()).isEqualTo(12);
    assertThat(written.get(0).closed()).as("its last version: may be compacted").isTrue();
    assertThat(hours.drain(finalBefore, false, true)).as("final: forgotten once written").isEmpty();

    // A minute closing later into the forgotten hour is a new partial with its own sequence.
    hours.update(closedMinute(202611221003L, 3, 1));
    List<Rollups.Rollup> late = hours.drain(finalBefore, false, true);
    assertThat(late).hasSize(1);
    assertThat(late.get(0).sequence()).isNotEqualTo(written.get(0).sequence());
    assertThat(late.get(0).states()[0].a()).isEqualTo(1);
  }

  @Test
  void anOpenHourIsRewrittenEveryDueTimeAndKept() {
    long finalBefore = 2026112210L; // hour 10 still open
    hours.update(closedMinute(202611221001L, 1, 5));
    assertThat(hours.drain(finalBefore, false, true)).hasSize(1);
    hours.update(closedMinute(202611221002L, 2, 7));
    List<Rollups.Rollup> again = hours.drain(finalBefore, false, true);
    assertThat(again).hasSize(1);
    assertThat(again.get(0).states()[0].a()).isEqualTo(12);
    assertThat(again.get(0).closed()).as("rewritten later: not to be compacted yet").isFalse();
  }

  @Test
  void anHourThatWentQuietBeforeItsEndIsWrittenClosedWhenItEnds() {
    hours.update(closedMinute(202611221040L, 1, 5)); // the last minute of the hour with traffic
    assertThat(hours.drain(2026112210L, false, true)).extracting(Rollups.Rollup::closed).containsExactly(false);
    assertThat(hours.drain(2026112210L, false, true)).as("unchanged, hour not over: nothing to write").isEmpty();

    List<Rollups.Rollup> last = hours.drain(2026112211L, false, true); // the hour is over
    assertThat(last).hasSize(1);
    assertThat(last.get(0).closed()).isTrue();
    assertThat(last.get(0).states()[0].a()).as("the same partial again, marked closed").isEqualTo(5);
    assertThat(hours.drain(2026112211L, false, true)).isEmpty();
  }

  @Test
  void pastTheBoundNothingMoreIsHeldAndEveryClosedMinuteIsWrittenExactlyOnce() {
    Rollups bounded = new Rollups(Step.HOUR, sequences::incrementAndGet, 10);
    long finalBefore = 2026112210L; // hour 10 still open
    long total = 0;
    long written = 0;
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 50; i++) { // 50 services, each with one closed minute per round
        EntityRef e = EntityRef.service("s" + i, Layer.MESH, "s" + i);
        written += sum(bounded.update(minute(e, 202611221000L + round, sequences.incrementAndGet(), i + 1, true)));
        total += i + 1;
        assertThat(bounded.held()).isLessThanOrEqualTo(10);
      }
      for (Rollups.Rollup r : bounded.drain(finalBefore, false, false)) {
        written += sum(r);
      }
    }
    for (Rollups.Rollup r : bounded.drain(finalBefore, true, true)) { // what is still held, at closing
      written += sum(r);
    }
    assertThat(written).as("every closed minute written exactly once, held or passed through").isEqualTo(total);

    // Under the bound an open minute is held (its copy is merged when written); past it, it waits to close.
    Rollups roomy = new Rollups(Step.HOUR, sequences::incrementAndGet, 1);
    assertThat(roomy.update(minute(service, 202611221005L, 99, 3, false))).isNull();
    assertThat(roomy.held()).isEqualTo(1);
    EntityRef other = EntityRef.service("other", Layer.MESH, "other");
    assertThat(roomy.update(minute(other, 202611221005L, 100, 4, false))).isNull();
    assertThat(roomy.held()).isEqualTo(1);
    Rollups.Rollup passedThrough = roomy.update(minute(other, 202611221005L, 100, 4, true));
    assertThat(sum(passedThrough)).isEqualTo(4);
    assertThat(passedThrough.closed()).as("written once, never again").isTrue();
  }

  private static long sum(Rollups.Rollup r) {
    return r == null ? 0 : r.states()[0].a();
  }
}
