package io.sextant.core.alarm;

import io.sextant.core.alarm.AlarmState.Status;

/**
 * How one evaluated minute moves an entity's alarm state, as SkyWalking 10.4's state machine does.
 * A broken minute in {@code NORMAL} fires an alarm and starts the silence ({@code silence-period}
 * minutes); broken minutes while silenced stay silent ({@code SILENCED_FIRING}), and the first one
 * after the silence fires again (so a rule that stays broken fires every silence + 1 minutes). An
 * unbroken minute while firing starts {@code OBSERVING_RECOVERY}; the alarm recovers at the first
 * unbroken minute after {@code recovery-observation-period} unbroken minutes in a row, and never
 * while its silence runs; a broken minute while observing goes back to firing. Both periods count
 * evaluated minutes. Pure: the caller stores and acts.
 */
public final class AlarmTransitions {
  private AlarmTransitions() {}

  /** The next state and what to tell: an alarm fired, or the one firing recovered (either may be null). */
  public record Step(AlarmState next, AlarmMessage fired, AlarmMessage recovered) {}

  /**
   * @param alarm the alarm that fires if this minute fires one (its uuid, start time and snapshot
   *     are this minute's)
   * @param recoveryMillis when a recovery declared this minute happened
   */
  public static Step next(AlarmRule rule, AlarmState s, boolean breached, long minute, AlarmMessage alarm,
      long recoveryMillis) {
    boolean silenced = s.silenceLeft() > 0;
    int silence = Math.max(0, s.silenceLeft() - 1);
    if (breached) {
      if (s.status() != Status.NORMAL && silenced) {
        return new Step(state(s, Status.SILENCED_FIRING, minute, silence, rule.recoveryObservationPeriod(),
            s.firing()), null, null);
      }
      return new Step(state(s, Status.FIRING, minute, rule.silencePeriod(), rule.recoveryObservationPeriod(),
          alarm), alarm, null);
    }
    if (s.status() == Status.NORMAL) {
      return new Step(state(s, Status.NORMAL, minute, silence, 0, null), null, null);
    }
    int recovery = s.recoveryLeft() - 1;
    if (recovery < 0 && !silenced) {
      AlarmMessage recovered = s.firing() == null ? null : s.firing().recoveredAt(recoveryMillis);
      return new Step(state(s, Status.NORMAL, minute, 0, 0, null), null, recovered);
    }
    return new Step(state(s, Status.OBSERVING_RECOVERY, minute, silence, Math.max(recovery, 0), s.firing()), null,
        null);
  }

  private static AlarmState state(AlarmState s, Status status, long minute, int silenceLeft, int recoveryLeft,
      AlarmMessage firing) {
    return new AlarmState(s.entityId(), status, minute, silenceLeft, recoveryLeft, firing, s.pending());
  }
}
