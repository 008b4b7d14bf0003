package io.sextant.core.alarm;

import java.util.List;

/** Alarm settings that cannot be used; the message lists every problem, each naming its rule or hook. */
public final class AlarmSettingsException extends RuntimeException {
  private final List<String> problems;

  public AlarmSettingsException(List<String> problems) {
    super(String.join("; ", problems));
    this.problems = List.copyOf(problems);
  }

  public List<String> problems() {
    return problems;
  }
}
