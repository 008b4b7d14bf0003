package io.sextant.core.alarm;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.core.alarm.AlarmState.Status;
import io.sextant.core.metric.MetricFamilies;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The state machine minute by minute: what fires, what stays silent, when an alarm recovers. */
class AlarmTransitionsTest {
  private static AlarmRule rule(int silence, int recovery) {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("expression", "sum(service_cpm > 1) >= 1");
    s.put("silence-period", silence);
    s.put("recovery-observation-period", recovery);
    return AlarmSettings.rule("cpm_rule", s, MetricFamilies.catalog(500), java.util.Set.of(), true, 0);
  }

  /** Runs the minutes ('x' broken, '.' not) and spells what each did: F fired, R recovered, - nothing. */
  private static String run(AlarmRule rule, String minutes, List<Status> states) {
    AlarmState s = AlarmState.normal("e");
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < minutes.length(); i++) {
      AlarmMessage candidate = new AlarmMessage("u" + i, 1, "SERVICE", "svc", "e", "", rule.name(), "m", i, 0,
          Map.of(), List.of(), null);
      AlarmTransitions.Step step = AlarmTransitions.next(rule, s, minutes.charAt(i) == 'x', i + 1, candidate,
          1000 + i);
      out.append(step.fired() != null ? 'F' : step.recovered() != null ? 'R' : '-');
      s = step.next();
      states.add(s.status());
    }
    return out.toString();
  }

  @Test
  void aBreachFiresThenStaysSilentForTheSilencePeriodThenFiresAgain() {
    List<Status> states = new ArrayList<>();
    // SkyWalking's RunningRuleTest: silence 2 fires at T0, is silent at T1 and T2, fires at T3.
    assertThat(run(rule(2, 0), "xxxxxxx", states)).isEqualTo("F--F--F");
    assertThat(states.subList(0, 3)).containsExactly(Status.FIRING, Status.SILENCED_FIRING,
        Status.SILENCED_FIRING);
  }

  @Test
  void withoutSilenceEveryBrokenMinuteFires() {
    assertThat(run(rule(0, 0), "xx.x", new ArrayList<>())).isEqualTo("FFRF");
  }

  @Test
  void theFirstUnbrokenMinuteAfterTheSilenceRecoversWithoutAnObservationPeriod() {
    assertThat(run(rule(0, 0), "x..", new ArrayList<>())).isEqualTo("FR-");
  }

  @Test
  void noRecoveryWhileTheSilenceRuns() {
    List<Status> states = new ArrayList<>();
    assertThat(run(rule(3, 0), "x.....", states)).isEqualTo("F---R-");
    assertThat(states).containsExactly(Status.FIRING, Status.OBSERVING_RECOVERY, Status.OBSERVING_RECOVERY,
        Status.OBSERVING_RECOVERY, Status.NORMAL, Status.NORMAL);
  }

  @Test
  void anObservationPeriodNeedsThatManyUnbrokenMinutesInARowBeforeTheRecovery() {
    List<Status> states = new ArrayList<>();
    // period 2: two unbroken minutes observed, the third recovers; a broken one starts over.
    assertThat(run(rule(0, 2), "x..x...", states)).isEqualTo("F--F--R");
    assertThat(states).containsExactly(Status.FIRING, Status.OBSERVING_RECOVERY, Status.OBSERVING_RECOVERY,
        Status.FIRING, Status.OBSERVING_RECOVERY, Status.OBSERVING_RECOVERY, Status.NORMAL);
  }

  @Test
  void aBrokenMinuteWhileObservingAndSilencedStaysSilent() {
    assertThat(run(rule(5, 1), "x.x......", new ArrayList<>())).isEqualTo("F-----R--");
  }

  @Test
  void theRecoveredMessageIsTheFiredOneWithItsRecoveryTime() {
    AlarmRule rule = rule(0, 0);
    AlarmMessage fired = new AlarmMessage("u", 1, "SERVICE", "svc", "e", "", rule.name(), "m", 5, 0, Map.of(),
        List.of(), null);
    AlarmState firing = AlarmTransitions.next(rule, AlarmState.normal("e"), true, 1, fired, 0).next();
    AlarmTransitions.Step step = AlarmTransitions.next(rule, firing, false, 2, null, 777);
    assertThat(step.recovered()).isEqualTo(fired.recoveredAt(777));
    assertThat(step.next().firing()).isNull();
  }
}
