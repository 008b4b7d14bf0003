package io.sextant.core.alarm;

import com.fasterxml.jackson.core.type.TypeReference;
import io.sextant.api.storage.ManagedDocument;
import io.sextant.api.storage.ManagementStore;
import io.sextant.api.storage.VersionConflictException;
import io.sextant.core.metric.MetricCatalog;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The rules in force: those of the settings file (read-only here, replaced when the file changes)
 * and those written through the API, kept as management documents (kind {@value #KIND}, the rule's
 * settings in SkyWalking's keys as JSON) with optimistic versions, so every collector sees the same.
 * A rule written through the API may not take the name of a file rule.
 */
public final class AlarmRules {
  public static final String KIND = "alarm-rule";
  private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

  private final Supplier<ManagementStore> management;
  private final MetricCatalog catalog;
  private volatile AlarmSettings file = AlarmSettings.none();
  private volatile Hooks hooks = new Hooks(java.util.Map.of(), System::currentTimeMillis);

  public AlarmRules(Supplier<ManagementStore> management, MetricCatalog catalog) {
    this.management = management;
    this.catalog = catalog;
  }

  public MetricCatalog catalog() {
    return catalog;
  }

  /** Replaces the file's rules and hooks; throws {@link AlarmSettingsException} for a hook it cannot call. */
  public void useFile(AlarmSettings settings) {
    Hooks checked = new Hooks(settings.hooks(), System::currentTimeMillis);
    this.file = settings;
    this.hooks = checked;
  }

  /** The hooks of the settings file in force. */
  public Hooks hooks() {
    return hooks;
  }

  public AlarmSettings file() {
    return file;
  }

  /** Every rule, the file's first; an API rule that no longer validates (a metric gone) is left out. */
  public List<AlarmRule> all() {
    List<AlarmRule> rules = new ArrayList<>(file.rules());
    for (ManagedDocument d : management.get().list(KIND)) {
      if (fileRule(d.id()).isEmpty()) {
        try {
          rules.add(fromDocument(d));
        } catch (AlarmSettingsException e) {
          // reported by the API when listed; evaluation skips it
        }
      }
    }
    return rules;
  }

  /**
   * A rule as the API lists it: its settings in the file's keys, and for a stored rule that no
   * longer loads (a hook removed from the file, a metric renamed) the problem instead of the rule.
   */
  public record Listed(String name, AlarmRule rule, Map<String, Object> settings, long version, String problem) {}

  /** Every rule, the file's first, then the API's by name, those that no longer load included. */
  public List<Listed> listed() {
    List<Listed> out = new ArrayList<>();
    for (AlarmRule r : file.rules()) {
      out.add(new Listed(r.name(), r, settingsOf(r), 0, null));
    }
    for (ManagedDocument d : management.get().list(KIND)) {
      if (fileRule(d.id()).isPresent()) {
        continue;
      }
      try {
        out.add(new Listed(d.id(), fromDocument(d), settings(d), d.version(), null));
      } catch (AlarmSettingsException e) {
        out.add(new Listed(d.id(), null, Map.of(), d.version(), e.getMessage()));
      }
    }
    return out;
  }

  /** A rule's settings in alarm-settings.yml's keys. */
  public static Map<String, Object> settingsOf(AlarmRule r) {
    Map<String, Object> s = new LinkedHashMap<>();
    if (r.events() != null) {
      Map<String, Object> e = new LinkedHashMap<>();
      EventCondition c = r.events();
      putIfSet(e, "type", c.type());
      putIfSet(e, "name-regex", c.nameRegex() == null ? null : c.nameRegex().pattern());
      putIfSet(e, "message-regex", c.messageRegex() == null ? null : c.messageRegex().pattern());
      putIfSet(e, "layer", c.layer());
      e.put("threshold", c.threshold());
      s.put("events", e);
      s.put("period", r.period());
    } else if (r.windows().size() > 1) {
      s.put("windows", r.windows().stream().map(w -> Map.of("expression", w.expression(), "period", w.period()))
          .toList());
    } else {
      s.put("expression", r.expression());
      s.put("period", r.period());
    }
    s.put("silence-period", r.silencePeriod());
    s.put("recovery-observation-period", r.recoveryObservationPeriod());
    if (!r.includeNames().isEmpty()) {
      s.put("include-names", List.copyOf(r.includeNames()));
    }
    if (!r.excludeNames().isEmpty()) {
      s.put("exclude-names", List.copyOf(r.excludeNames()));
    }
    if (r.includeNamesRegex() != null) {
      s.put("include-names-regex", r.includeNamesRegex().pattern());
    }
    if (r.excludeNamesRegex() != null) {
      s.put("exclude-names-regex", r.excludeNamesRegex().pattern());
    }
    if (!r.tags().isEmpty()) {
      s.put("tags", r.tags());
    }
    s.put("message", r.message());
    if (!r.hooks().isEmpty()) {
      s.put("hooks", r.hooks());
    }
    if (!r.enabled()) {
      s.put("enabled", false);
    }
    return s;
  }

  private static void putIfSet(Map<String, Object> m, String key, String value) {
    if (value != null) {
      m.put(key, value);
    }
  }

  /** One rule by name, from the file or the API. */
  public Optional<AlarmRule> find(String name) {
    Optional<AlarmRule> f = fileRule(name);
    return f.isPresent() ? f : management.get().get(KIND, name).map(this::fromDocument);
  }

  /**
   * Validates and stores an API rule: {@code expectedVersion} 0 creates it, else replaces that
   * version. Throws {@link AlarmSettingsException} (with every problem) or {@link
   * VersionConflictException}.
   */
  public AlarmRule save(String name, Map<String, Object> settings, long expectedVersion) {
    if (fileRule(name).isPresent()) {
      throw new AlarmSettingsException(List.of("rule '" + name
          + "' comes from the alarm settings file and is changed there, not through the API"));
    }
    AlarmSettings.rule(name, settings, catalog, file.hooks().keySet(), false, expectedVersion + 1);
    ManagedDocument d = management.get().put(KIND, name, AlarmJson.JSON.valueToTree(settings).toString(),
        expectedVersion);
    return fromDocument(d);
  }

  /** Removes an API rule at the given version; false when there is none. */
  public boolean delete(String name, long expectedVersion) {
    if (fileRule(name).isPresent()) {
      throw new AlarmSettingsException(List.of("rule '" + name + "' comes from the alarm settings file"));
    }
    return management.get().delete(KIND, name, expectedVersion);
  }

  /** Checks a draft without storing it. */
  public AlarmRule draft(String name, Map<String, Object> settings) {
    return AlarmSettings.rule(name, settings, catalog, file.hooks().keySet(), false, 0);
  }

  /** The stored settings of an API rule, as written. */
  public static Map<String, Object> settings(ManagedDocument d) {
    try {
      return new LinkedHashMap<>(AlarmJson.JSON.readValue(d.body(), MAP));
    } catch (IOException e) {
      throw new AlarmSettingsException(List.of("rule '" + d.id() + "': stored settings are not JSON"));
    }
  }

  private AlarmRule fromDocument(ManagedDocument d) {
    return AlarmSettings.rule(d.id(), settings(d), catalog, file.hooks().keySet(), false, d.version());
  }

  private Optional<AlarmRule> fileRule(String name) {
    return file.rules().stream().filter(r -> r.name().equals(name)).findFirst();
  }
}
