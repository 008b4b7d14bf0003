package io.sextant.core.management;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Checks a dashboard configuration before it is stored. SkyWalking stores any text; booster-ui then
 * parses every template with {@code JSON.parse} and sorts them by {@code name}, so one bad template
 * would break the dashboard list of every user. We refuse it instead.
 */
final class TemplateConfiguration {
  /** SkyWalking's column length for a configuration. */
  static final int MAX_CHARS = 1_000_000;

  private static final ObjectMapper JSON = new ObjectMapper();

  private TemplateConfiguration() {}

  /** The configuration parsed, or an {@link IllegalArgumentException} saying what is wrong with it. */
  static JsonNode parse(String configuration) {
    if (configuration == null || configuration.isBlank()) {
      throw new IllegalArgumentException("The configuration is empty: it must be a dashboard JSON object");
    }
    if (configuration.length() > MAX_CHARS) {
      throw new IllegalArgumentException("The configuration has " + configuration.length()
          + " characters, more than the " + MAX_CHARS + " a template may have");
    }
    JsonNode node;
    try {
      node = JSON.readTree(configuration);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("The configuration is not valid JSON: " + e.getOriginalMessage());
    }
    return checked(node);
  }

  /** The node if it is a dashboard object with the fields the UI files it under. */
  static JsonNode checked(JsonNode node) {
    if (node == null || !node.isObject()) {
      throw new IllegalArgumentException("The configuration must be a JSON object (a dashboard)");
    }
    for (String field : new String[] {"name", "layer", "entity"}) {
      JsonNode value = node.get(field);
      if (value == null || !value.isTextual() || value.asText().isBlank()) {
        throw new IllegalArgumentException("The configuration needs a non-empty string '" + field
            + "': the UI files a dashboard under its layer, entity and name");
      }
    }
    return node;
  }

  /** How the UI keys a dashboard: {@code layer_entity_name}. */
  static String nameKey(JsonNode checked) {
    return checked.get("layer").asText() + "_" + checked.get("entity").asText() + "_" + checked.get("name").asText();
  }
}
