package io.sextant.core.alarm;

import java.util.List;

/**
 * Where one rule stands for one entity, shared by every collector through a version-checked
 * management document (kind {@value #KIND}, id {@code <rule>|<entity id>}): the collector whose
 * write of minute {@code lastMinute} succeeded decided that minute, and no other will.
 *
 * <p>Both periods count evaluated minutes, as SkyWalking's countdowns do: {@code silenceLeft}
 * minutes stay silent after an alarm; {@code recoveryLeft} more unbroken minutes end the alarm
 * ({@code OBSERVING_RECOVERY}). {@code firing}: the alarm that is on (null when {@code NORMAL}).
 * {@code pending}: alarms decided and not yet delivered to every hook (an outbox: a collector that
 * dies before delivering leaves them for another).
 */
public record AlarmState(String entityId, Status status, long lastMinute, int silenceLeft, int recoveryLeft,
    AlarmMessage firing, List<Pending> pending) {
  public static final String KIND = "alarm-state";

  /** SkyWalking 10.4's states; a recovery passes through RECOVERED back to NORMAL within one minute. */
  public enum Status { NORMAL, FIRING, SILENCED_FIRING, OBSERVING_RECOVERY }

  public AlarmState {
    pending = List.copyOf(pending);
  }

  public static AlarmState normal(String entityId) {
    return new AlarmState(entityId, Status.NORMAL, 0, 0, 0, null, List.of());
  }

  /** An alarm (new, or recovered) still to be handed to {@code hooks}; claimed at {@code claimedMillis}. */
  public record Pending(AlarmMessage message, List<String> hooks, long claimedMillis) {
    public Pending {
      hooks = List.copyOf(hooks);
    }
  }

  public static String id(String ruleName, String entityId) {
    return ruleName + "|" + entityId;
  }

  /** The same state with one more delivery pending. */
  AlarmState withPending(Pending p) {
    List<Pending> more = new java.util.ArrayList<>(pending);
    more.add(p);
    return new AlarmState(entityId, status, lastMinute, silenceLeft, recoveryLeft, firing, more);
  }

  AlarmState withPending(List<Pending> replaced) {
    return new AlarmState(entityId, status, lastMinute, silenceLeft, recoveryLeft, firing, replaced);
  }
}
