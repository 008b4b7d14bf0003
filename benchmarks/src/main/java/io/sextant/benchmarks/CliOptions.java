package io.sextant.benchmarks;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * A benchmark tool's {@code --key=value} options, each declared with a default and a help text;
 * later occurrences win, unknown keys are refused with the usage. Subclasses declare their options
 * in the constructor and check their ranges in {@link #validate()}.
 */
abstract class CliOptions {
  private final String tool;
  private final Map<String, String[]> known = new LinkedHashMap<>();
  private final Map<String, String> values = new LinkedHashMap<>();

  CliOptions(String tool) {
    this.tool = tool;
  }

  protected final void opt(String key, String def, String help) {
    known.put(key, new String[] {def, help});
    values.put(key, def);
  }

  /** Checks the values once every argument is applied; throws IllegalArgumentException. */
  protected abstract void validate();

  /** Applies {@code args}, then validates; {@code --help} throws with the usage. */
  protected final void apply(String[] args) {
    for (String arg : args) {
      if (arg.equals("--help") || arg.equals("-h")) {
        throw new IllegalArgumentException(usage());
      }
      if (!arg.startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument '" + arg + "'\n" + usage());
      }
      int eq = arg.indexOf('=');
      String key = eq < 0 ? arg.substring(2) : arg.substring(2, eq);
      if (!known.containsKey(key)) {
        throw new IllegalArgumentException("unknown option --" + key + "\n" + usage());
      }
      values.put(key, eq < 0 ? "true" : arg.substring(eq + 1));
    }
    validate();
  }

  final String usage() {
    int width = known.keySet().stream().mapToInt(String::length).max().orElse(0) + 2;
    StringBuilder sb = new StringBuilder("usage: " + tool + " [--key=value ...]\n");
    known.forEach((k, v) -> sb.append(String.format("  --%-" + width + "s %s (default: %s)%n", k, v[1],
        v[0].isEmpty() ? "none" : v[0])));
    return sb.toString();
  }

  final String string(String key) {
    return values.get(key).trim();
  }

  final int integer(String key) {
    return parsed(key, Integer::parseInt, "an integer");
  }

  final long longValue(String key) {
    return parsed(key, Long::parseLong, "an integer");
  }

  final double ratio(String key) {
    return parsed(key, Double::parseDouble, "a number");
  }

  /** The option's value as {@code parse} reads it, or a message naming the option and what it must be. */
  private <T> T parsed(String key, Function<String, T> parse, String what) {
    try {
      return parse.apply(string(key));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + key + " must be " + what + ", got '" + values.get(key) + "'");
    }
  }

  final boolean bool(String key) {
    String v = string(key).toLowerCase(Locale.ROOT);
    if (!v.equals("true") && !v.equals("false")) {
      throw new IllegalArgumentException("--" + key + " must be true or false, got '" + values.get(key) + "'");
    }
    return v.equals("true");
  }

  /** The server's pid from {@code --server-pid}, or -1 when not given. */
  final long serverPid() {
    return string("server-pid").isEmpty() ? -1 : longValue("server-pid");
  }

  final String summary() {
    StringBuilder sb = new StringBuilder();
    values.forEach((k, v) -> sb.append(" --").append(k).append('=').append(v));
    return sb.toString().trim();
  }
}
