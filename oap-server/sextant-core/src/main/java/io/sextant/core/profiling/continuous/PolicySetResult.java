package io.sextant.core.profiling.continuous;

/** {@code ContinuousProfilingSetResult}: {@code status} false with the reason when refused. */
public record PolicySetResult(boolean status, String errorReason) {
  static PolicySetResult done() {
    return new PolicySetResult(true, null);
  }

  static PolicySetResult refused(String reason) {
    return new PolicySetResult(false, reason);
  }
}
