package io.sextant.receiver.common;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns a request into a bounded endpoint name: {@code METHOD:path} without the query string,
 * rewritten by the first matching grouping rule (e.g. {@code GET:/reviews/\d+ => GET:/reviews/{id}}),
 * and past a per-service budget of distinct names folded into one overflow endpoint. Raw paths with
 * ids in them are what makes endpoint counts (and memory) explode.
 */
public final class EndpointNamer {
  public static final String OVERFLOW = "<overflow>";

  private final List<Rule> rules;
  private final int budgetPerService;
  private final int maxServices;
  private final ConcurrentHashMap<String, Set<String>> seen = new ConcurrentHashMap<>();
  private final AtomicInteger services = new AtomicInteger();
  private final Runnable onOverflow;

  /**
   * @param rules {@code ;}-separated {@code regex => name} rules; the name may use {@code $1}..
   * @param onOverflow called for every request folded into the overflow endpoint
   */
  public EndpointNamer(String rules, int budgetPerService, int maxServices, Runnable onOverflow) {
    this.rules = parse(rules);
    this.budgetPerService = budgetPerService;
    this.maxServices = maxServices;
    this.onOverflow = onOverflow;
  }

  /**
   * The keys of a receiver's namer under {@code prefix} (e.g. {@code receiver.als.}): {@code
   * endpointRules} ({@code example} shows one), {@code endpointBudgetPerService}, {@code maxServices}.
   */
  public static List<ConfigKey> keys(String prefix, String example) {
    return List.of(
        ConfigKey.optionalString(prefix + "endpointRules",
            "endpoint grouping rules, ';'-separated 'regex => name', e.g. '" + example + "'"),
        ConfigKey.integer(prefix + "endpointBudgetPerService", 1000, 1, 1_000_000,
            "distinct endpoints per service; past it requests fold into the '<overflow>' endpoint (counted)"),
        ConfigKey.integer(prefix + "maxServices", 10_000, 1, 10_000_000, "services tracked for endpoint budgets"));
  }

  /** The namer {@link #keys} under {@code prefix} describe. */
  public static EndpointNamer fromSettings(Settings settings, String prefix, Runnable onOverflow) {
    return new EndpointNamer(settings.string(prefix + "endpointRules"),
        settings.integer(prefix + "endpointBudgetPerService"), settings.integer(prefix + "maxServices"), onOverflow);
  }

  public String name(String service, String method, String path) {
    int q = path.indexOf('?');
    String raw = method + ":" + (q >= 0 ? path.substring(0, q) : path);
    String name = group(raw);
    Set<String> known = seen.get(service);
    if (known == null) {
      if (services.get() >= maxServices) {
        onOverflow.run();
        return OVERFLOW;
      }
      known = seen.computeIfAbsent(service, s -> {
        services.incrementAndGet();
        return ConcurrentHashMap.newKeySet();
      });
    }
    if (known.contains(name)) {
      return name;
    }
    if (known.size() >= budgetPerService) {
      onOverflow.run();
      return OVERFLOW;
    }
    known.add(name);
    return name;
  }

  String group(String raw) {
    for (Rule r : rules) {
      Matcher m = r.pattern.matcher(raw);
      if (m.matches()) {
        return m.replaceFirst(r.name);
      }
    }
    return raw;
  }

  private static List<Rule> parse(String spec) {
    List<Rule> out = new ArrayList<>();
    if (spec == null || spec.isBlank()) {
      return out;
    }
    for (String part : spec.split(";")) {
      if (part.isBlank()) {
        continue;
      }
      int arrow = part.indexOf("=>");
      if (arrow < 0) {
        throw new IllegalArgumentException("endpoint rule '" + part.trim() + "' is not 'regex => name'");
      }
      out.add(new Rule(Pattern.compile(part.substring(0, arrow).trim()), part.substring(arrow + 2).trim()));
    }
    return out;
  }

  private record Rule(Pattern pattern, String name) {}
}
