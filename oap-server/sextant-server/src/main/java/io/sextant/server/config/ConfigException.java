package io.sextant.server.config;

import java.util.List;

/** Start-up refused: the message lists every configuration problem, one per line. */
public final class ConfigException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final List<String> problems;

  public ConfigException(List<String> problems) {
    super("invalid configuration:\n  " + String.join("\n  ", problems));
    this.problems = List.copyOf(problems);
  }

  public List<String> problems() {
    return problems;
  }
}
