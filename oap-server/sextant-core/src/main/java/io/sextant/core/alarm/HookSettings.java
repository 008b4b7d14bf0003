package io.sextant.core.alarm;

import java.util.Map;

/**
 * One configured hook: {@code kind} is SkyWalking's hook type ({@code webhook}, {@code slack},
 * {@code pagerduty}, ...), {@code name} its name under that type; rules name it {@code kind.name}.
 * A default hook ({@code is-default: true}) is called for every rule that names no hook.
 */
public record HookSettings(String kind, String name, boolean isDefault, Map<String, Object> settings) {
  public HookSettings {
    settings = Map.copyOf(settings);
  }

  /** How rules refer to it: {@code webhook.default}. */
  public String id() {
    return kind + "." + name;
  }
}
