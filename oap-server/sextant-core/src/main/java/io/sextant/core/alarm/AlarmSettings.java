package io.sextant.core.alarm;

import io.sextant.api.model.Scope;
import io.sextant.api.time.Step;
import io.sextant.core.metric.MetricCatalog;
import io.sextant.core.metric.MetricDefinition;
import io.sextant.core.query.mqe.Expression;
import io.sextant.core.query.mqe.KeyValue;
import io.sextant.core.query.mqe.MetricKind;
import io.sextant.core.query.mqe.Mqe;
import io.sextant.core.query.mqe.MqeEntity;
import io.sextant.core.query.mqe.MqeException;
import io.sextant.core.query.mqe.MqeResult;
import io.sextant.core.query.mqe.MqeSeries;
import io.sextant.core.query.mqe.RankedValue;
import io.sextant.core.query.mqe.ResultType;
import io.sextant.core.query.mqe.Series;
import io.sextant.core.query.mqe.SeriesSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The rules and hooks of one {@code alarm-settings.yml} (SkyWalking's format), read from its parsed
 * YAML. Every rule is checked against the metric catalog at load: its expression parses, reads
 * metrics Sextant has, all of one scope, compares at its root and answers one value per entity.
 */
public record AlarmSettings(List<AlarmRule> rules, Map<String, HookSettings> hooks) {
  /** SkyWalking's hook types; those Sextant cannot call are refused when named. */
  public static final Set<String> HOOK_KINDS =
      Set.of("webhook", "slack", "pagerduty", "discord", "dingtalk", "feishu", "wechat", "welink", "grpc");
  private static final Set<String> RULE_KEYS = Set.of("expression", "period", "silence-period",
      "recovery-observation-period", "include-names", "exclude-names", "include-names-regex", "exclude-names-regex",
      "tags", "message", "hooks", "enabled", "events", "windows");
  private static final Set<String> EVENT_KEYS = Set.of("type", "name-regex", "message-regex", "layer", "threshold");
  static final int MAX_PERIOD_MINUTES = 1440;
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{([^}]*)}");

  public AlarmSettings {
    rules = List.copyOf(rules);
    hooks = Map.copyOf(hooks);
  }

  public static AlarmSettings none() {
    return new AlarmSettings(List.of(), Map.of());
  }

  /** Reads a whole settings file ({@code rules:} and {@code hooks:}); every problem is listed at once. */
  public static AlarmSettings parse(Map<String, Object> root, MetricCatalog catalog) {
    List<String> problems = new ArrayList<>();
    Map<String, Object> safeRoot = root == null ? Map.of() : root;
    for (String key : safeRoot.keySet()) {
      if (!key.equals("rules") && !key.equals("hooks")) {
        problems.add("unknown top-level key '" + key + "' (expected rules and hooks)");
      }
    }
    Map<String, HookSettings> hooks = parseHooks(map(safeRoot.get("hooks"), "hooks", problems), problems);
    List<AlarmRule> rules = new ArrayList<>();
    map(safeRoot.get("rules"), "rules", problems).forEach((name, settings) -> {
      try {
        rules.add(rule(name, map(settings, "rule '" + name + "'", problems), catalog, hooks.keySet(), true, 0));
      } catch (AlarmSettingsException e) {
        problems.addAll(e.problems());
      }
    });
    if (!problems.isEmpty()) {
      throw new AlarmSettingsException(problems);
    }
    return new AlarmSettings(rules, hooks);
  }

  /**
   * One rule from its settings (a rule of the file, or one written through the API); throws with
   * every problem, each naming the rule.
   */
  public static AlarmRule rule(String name, Map<String, Object> s, MetricCatalog catalog, Set<String> hookIds,
      boolean fromFile, long version) {
    List<String> problems = new ArrayList<>();
    String prefix = "rule '" + name + "': ";
    if (name == null || !name.endsWith("_rule")) {
      problems.add(prefix + "a rule's name must end with '_rule', as SkyWalking requires");
    }
    for (String key : s.keySet()) {
      if (!RULE_KEYS.contains(key)) {
        problems.add(prefix + "unknown key '" + key + "'" + (Set.of("metrics-name", "op", "threshold", "count")
            .contains(key) ? " (SkyWalking 9's form: write it as an MQE expression)" : ""));
      }
    }
    String expression = s.get("expression") == null ? null : String.valueOf(s.get("expression"));
    Scope scope = null;
    List<String> metrics = new ArrayList<>();
    List<AlarmRule.Window> windows = new ArrayList<>();
    EventCondition events = null;
    int period;
    if (s.containsKey("events")) {
      events = events(map(s.get("events"), prefix + "events", problems), prefix, problems);
      scope = Scope.SERVICE;
      if (expression != null) {
        problems.add(prefix + "an event rule has events instead of an expression, not both");
      }
      period = integer(s, "period", 1, 1, MAX_PERIOD_MINUTES, prefix, problems);
    } else if (s.containsKey("windows")) {
      if (expression != null || s.containsKey("period")) {
        problems.add(prefix + "a rule with windows has no expression or period of its own (each window has both)");
      }
      Object list = s.get("windows");
      List<?> items = list instanceof List<?> l ? l : List.of();
      if (items.size() < 2) {
        problems.add(prefix + "windows needs two or more windows, each with an expression and a period");
      }
      for (int i = 0; i < items.size(); i++) {
        String where = prefix + "window " + (i + 1) + ": ";
        Map<String, Object> w = map(items.get(i), where, problems);
        String text = w.get("expression") == null ? null : String.valueOf(w.get("expression"));
        Checked c = check(text, where, catalog, problems);
        int windowPeriod = integer(w, "period", 1, 1, MAX_PERIOD_MINUTES, where, problems);
        if (c != null) {
          if (scope != null && c.scope() != scope) {
            problems.add(where + "reads " + c.scope() + " metrics, the first window " + scope + " ones");
          }
          scope = scope == null ? c.scope() : scope;
          c.metrics().stream().filter(m -> !metrics.contains(m)).forEach(metrics::add);
          windows.add(new AlarmRule.Window(text, c.parsed(), windowPeriod));
        }
      }
      period = windows.stream().mapToInt(AlarmRule.Window::period).max().orElse(1);
      expression = String.join(" && ", windows.stream().map(w -> w.expression() + " [" + w.period() + "m]").toList());
    } else {
      Checked c = check(expression, prefix, catalog, problems);
      period = integer(s, "period", 1, 1, MAX_PERIOD_MINUTES, prefix, problems);
      if (c != null) {
        scope = c.scope();
        metrics.addAll(c.metrics());
        windows.add(new AlarmRule.Window(expression, c.parsed(), period));
      }
    }
    int silence = integer(s, "silence-period", period, 0, 100_000, prefix, problems);
    int recovery = integer(s, "recovery-observation-period", 0, 0, MAX_PERIOD_MINUTES, prefix, problems);
    Pattern include = regex(s, "include-names-regex", prefix, problems);
    Pattern exclude = regex(s, "exclude-names-regex", prefix, problems);
    Map<String, String> tags = new LinkedHashMap<>();
    map(s.get("tags"), prefix + "tags", problems).forEach((k, v) -> tags.put(k, String.valueOf(v)));
    List<String> hooks = strings(s.get("hooks"), prefix + "hooks", problems);
    for (String hook : hooks) {
      if (!hookIds.contains(hook)) {
        problems.add(prefix + "hook '" + hook + "' is not defined under hooks (defined: " + hookIds + ")");
      }
    }
    String message = s.get("message") == null ? "Alarm caused by Rule " + name : String.valueOf(s.get("message"));
    java.util.regex.Matcher placeholder = PLACEHOLDER.matcher(message);
    while (placeholder.find()) {
      if (!placeholder.group(1).equals("name") && !placeholder.group(1).equals("id")) {
        problems.add(prefix + "message placeholder {" + placeholder.group(1) + "} is unknown (only {name} and {id})");
      }
    }
    boolean enabled = !Boolean.FALSE.equals(s.get("enabled"));
    Set<String> includeNames = new LinkedHashSet<>(strings(s.get("include-names"), prefix + "include-names", problems));
    Set<String> excludeNames = new LinkedHashSet<>(strings(s.get("exclude-names"), prefix + "exclude-names", problems));
    if (!problems.isEmpty()) {
      throw new AlarmSettingsException(problems);
    }
    return new AlarmRule(name, expression == null ? "" : expression, windows, scope, metrics, period, silence,
        recovery, includeNames, excludeNames, include, exclude, tags, message, hooks, enabled, fromFile, version,
        events);
  }

  /** A checked expression: parsed, of one scope, comparing at its root, answering a single value. */
  private record Checked(Expression parsed, Scope scope, List<String> metrics) {}

  private static Checked check(String expression, String prefix, MetricCatalog catalog, List<String> problems) {
    if (expression == null || expression.isBlank()) {
      problems.add(prefix + "expression is required");
      return null;
    }
    int before = problems.size();
    try {
      Expression parsed = Mqe.parse(expression);
      List<String> metrics = Mqe.metricNames(parsed);
      Scope scope = scopeOf(metrics, catalog, prefix, problems);
      if (!Mqe.comparesAtRoot(parsed)) {
        problems.add(prefix + "the expression must compare at its root (e.g. sum(service_sla < 8000) >= 2),"
            + " so that it answers 1 (fire) or 0");
      } else if (scope != null) {
        String shape = shapeProblem(parsed, catalog);
        if (shape != null) {
          problems.add(prefix + shape);
        }
      }
      return problems.size() == before ? new Checked(parsed, scope, metrics) : null;
    } catch (MqeException e) {
      problems.add(prefix + "expression does not parse: " + e.getMessage());
      return null;
    }
  }

  private static EventCondition events(Map<String, Object> e, String prefix, List<String> problems) {
    for (String key : e.keySet()) {
      if (!EVENT_KEYS.contains(key)) {
        problems.add(prefix + "events: unknown key '" + key + "' (known: " + new java.util.TreeSet<>(EVENT_KEYS) + ")");
      }
    }
    if (e.isEmpty()) {
      problems.add(prefix + "events needs at least one of type, name-regex, message-regex, layer");
    }
    return new EventCondition(e.get("type") == null ? null : String.valueOf(e.get("type")),
        regex(e, "name-regex", prefix + "events: ", problems), regex(e, "message-regex", prefix + "events: ", problems),
        e.get("layer") == null ? null : String.valueOf(e.get("layer")),
        integer(e, "threshold", 1, 1, 1_000_000, prefix + "events: ", problems));
  }

  private static Scope scopeOf(List<String> metrics, MetricCatalog catalog, String prefix, List<String> problems) {
    Scope scope = null;
    for (String metric : metrics) {
      MetricDefinition def = catalog.find(metric).orElse(null);
      if (def == null) {
        problems.add(prefix + "unknown metric '" + metric + "'");
        return null;
      }
      if (scope != null && scope != def.scope()) {
        problems.add(prefix + "metrics of different scopes (" + scope + " and " + def.scope() + " '" + metric
            + "'): one rule watches one kind of entity");
        return null;
      }
      scope = def.scope();
    }
    if (scope == null) {
      problems.add(prefix + "the expression reads no metric");
    } else if (scope.isProcess()) {
      problems.add(prefix + "alarms on " + scope + " metrics are not built");
      return null;
    }
    return scope;
  }

  /**
   * Evaluates the expression on made-up data (every metric 1 in every minute) with the real
   * evaluator: an alarm needs one value per entity (and per label), not a series.
   */
  private static String shapeProblem(Expression parsed, MetricCatalog catalog) {
    MqeEntity entity = new MqeEntity("s", true, "i", "e", null, "d", true, "di", "de", null);
    MqeResult r = Mqe.evaluate(parsed, new OnesEverywhere(catalog), entity, List.of(202601010000L, 202601010001L),
        Step.MINUTE);
    if (r.error() != null) {
      return "the expression cannot be evaluated: " + r.error();
    }
    if (r.type() != ResultType.SINGLE_VALUE) {
      return "the expression must answer a single value per entity (wrap the metric in sum/avg/max/min/latest/count"
          + " over the period), but it answers " + r.type();
    }
    for (MqeSeries series : r.results()) {
      if (series.values().size() > 1) {
        return "the expression must answer a single value per entity, but it answers " + series.values().size();
      }
    }
    return null;
  }

  /** Every metric is 1 in every bucket; a labelled one has one series per label. */
  private record OnesEverywhere(MetricCatalog catalog) implements SeriesSource {
    @Override
    public MetricKind kind(String metric) {
      return catalog.find(metric).map(d -> d.function().labelKey() == null ? MetricKind.REGULAR
          : MetricKind.LABELED).orElse(null);
    }

    @Override
    public List<Series> read(String metric, Map<String, String> labelSelector, MqeEntity entity,
        List<Long> buckets, Step step) {
      MetricDefinition def = catalog.find(metric).orElseThrow();
      Double[] ones = new Double[buckets.size()];
      java.util.Arrays.fill(ones, 1.0);
      String key = def.function().labelKey();
      if (key == null) {
        return List.of(new Series(List.of(), ones));
      }
      Collection<String> labels = def.function().labelValues().isEmpty() ? List.of("x")
          : labelSelector.containsKey(key) ? List.of(labelSelector.get(key).split(","))
          : def.function().labelValues();
      return labels.stream().map(l -> new Series(List.of(new KeyValue(key, l)), ones.clone())).toList();
    }

    @Override
    public List<RankedValue> topN(String metric, int n, boolean ascending,
        List<io.sextant.core.query.mqe.AttributeFilter> attributes, MqeEntity entity, List<Long> buckets, Step step) {
      throw new MqeException("top_n ranks entities: an alarm rule watches each entity on its own");
    }
  }

  private static Map<String, HookSettings> parseHooks(Map<String, Object> byKind, List<String> problems) {
    Map<String, HookSettings> hooks = new LinkedHashMap<>();
    byKind.forEach((kind, named) -> {
      if (!HOOK_KINDS.contains(kind)) {
        problems.add("hooks: unknown hook type '" + kind + "' (known: " + new java.util.TreeSet<>(HOOK_KINDS) + ")");
        return;
      }
      map(named, "hooks." + kind, problems).forEach((name, settings) -> {
        Map<String, Object> s = map(settings, "hooks." + kind + "." + name, problems);
        HookSettings hook = new HookSettings(kind, name, Boolean.TRUE.equals(s.get("is-default")), s);
        hooks.put(hook.id(), hook);
      });
    });
    return hooks;
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object value, String where, List<String> problems) {
    if (value == null) {
      return Map.of();
    }
    if (value instanceof Map<?, ?> m) {
      Map<String, Object> out = new LinkedHashMap<>();
      m.forEach((k, v) -> out.put(String.valueOf(k), v));
      return out;
    }
    problems.add(where + " must be a map");
    return Map.of();
  }

  static List<String> strings(Object value, String where, List<String> problems) {
    if (value == null) {
      return List.of();
    }
    if (value instanceof Collection<?> c) {
      return c.stream().map(String::valueOf).toList();
    }
    if (value instanceof String text) {
      return List.of(text.split(",")).stream().map(String::trim).filter(t -> !t.isEmpty()).toList();
    }
    problems.add(where + " must be a list");
    return List.of();
  }

  private static int integer(Map<String, Object> s, String key, int dflt, int min, int max, String prefix,
      List<String> problems) {
    Object v = s.get(key);
    if (v == null) {
      return dflt;
    }
    try {
      int n = v instanceof Number num ? num.intValue() : Integer.parseInt(String.valueOf(v).trim());
      if (n < min || n > max) {
        problems.add(prefix + key + " must be between " + min + " and " + max + ", not " + n);
      }
      return n;
    } catch (NumberFormatException e) {
      problems.add(prefix + key + " must be a whole number of minutes, not '" + v + "'");
      return dflt;
    }
  }

  private static Pattern regex(Map<String, Object> s, String key, String prefix, List<String> problems) {
    Object v = s.get(key);
    if (v == null || String.valueOf(v).isEmpty()) {
      return null;
    }
    try {
      return Pattern.compile(String.valueOf(v));
    } catch (PatternSyntaxException e) {
      problems.add(prefix + key + " is not a regular expression: " + e.getDescription());
      return null;
    }
  }
}
