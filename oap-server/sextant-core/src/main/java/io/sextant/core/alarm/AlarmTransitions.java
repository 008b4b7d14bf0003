package io.sextant.core.alarm;

import io.sextant.core.alarm.AlarmState.Status;

/**
 * How one evaluated minute moves an entity's alarm state, as SkyWalking 10.4's state machine does:
 * a breach in {@code NORMAL} fires an alarm and starts the silence; a breach while silenced stays
 * silent ({@code SILENCED_FIRING}) until the silence has run out, then fires again; an unbroken
 * minute while firing starts {@code OBSERVING_RECOVERY}, and once {@code
 * recovery-observation-period} minutes in a row were unbroken the alarm is recovered (with no
 * observation period, at the first unbroken minute); a breach while observing goes back to firing.
 * The silence counts down every minute, broken or not. Pure: the caller stores and acts.
 */
public final class AlarmTransitions {
  private AlarmTransitions() {}

  /** The next state and what to tell: an alarm fired, or the one firing recovered (either may be null). */
  public record Step(AlarmState next, AlarmMessage fired, AlarmMessage recovered) {
    /** Whether anything must be stored: a state that is not the resting one, or a change to tell. */
    public boolean changes(AlarmState before) {
      return fired != null || recovered != null || !next.equals(before);
    }
  }

  /**
   * @param alarm the alarm that fires if this minute fires one (its uuid, start time and snapshot
   *     are this minute's)
   * @param recoveryMillis when a recovery declared this minute happened (the end of the minute)
   */
  public static Step next(AlarmRule rule, AlarmState s, boolean breached, long minute, AlarmMessage alarm,
      long recoveryMillis) {
    int silence = Math.max(0, s.silenceLeft() - 1);
    if (breached) {
      if (s.silenceLeft() > 0) {
        return new Step(state(s, Status.SILENCED_FIRING, minute, silence, 0, s.firing()), null, null);
      }
      return new Step(state(s, Status.FIRING, minute, rule.silencePeriod(), 0, alarm), alarm, null);
    }
    switch (s.status()) {
      case FIRING, SILENCED_FIRING -> {
        if (rule.recoveryObservationPeriod() <= 1) {
          return recovered(s, minute, silence, recoveryMillis);
        }
        return new Step(state(s, Status.OBSERVING_RECOVERY, minute, silence,
            rule.recoveryObservationPeriod() - 1, s.firing()), null, null);
      }
      case OBSERVING_RECOVERY -> {
        if (s.recoveryLeft() <= 1) {
          return recovered(s, minute, silence, recoveryMillis);
        }
        return new Step(state(s, Status.OBSERVING_RECOVERY, minute, silence, s.recoveryLeft() - 1, s.firing()),
            null, null);
      }
      default -> {
        return new Step(state(s, Status.NORMAL, minute, silence, 0, null), null, null);
      }
    }
  }

  private static Step recovered(AlarmState s, long minute, int silence, long recoveryMillis) {
    AlarmMessage recovered = s.firing() == null ? null : s.firing().recoveredAt(recoveryMillis);
    return new Step(state(s, Status.NORMAL, minute, silence, 0, null), null, recovered);
  }

  private static AlarmState state(AlarmState s, Status status, long minute, int silenceLeft, int recoveryLeft,
      AlarmMessage firing) {
    return new AlarmState(s.entityId(), status, minute, silenceLeft, recoveryLeft, firing, s.pending());
  }
}
