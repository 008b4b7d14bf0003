package io.sextant.api.component;

/** Outcome of a health check; {@code detail} says what is wrong when not ok. */
public record CheckResult(boolean ok, String detail) {
  public static final CheckResult OK = new CheckResult(true, "");

  public static CheckResult failed(String detail) {
    return new CheckResult(false, detail);
  }
}
