package io.sextant.core.management;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The body of a {@code ui-template} management document. {@code shippedHash} is the hash of the
 * shipped configuration this template still holds; it is dropped by any user change or disable, so
 * a template carrying it is one nobody touched and may be replaced by a newer shipped version.
 */
record StoredTemplate(String configuration, boolean disabled, String shippedHash) {
  private static final ObjectMapper JSON = new ObjectMapper();

  static StoredTemplate shipped(ShippedTemplate t) {
    return new StoredTemplate(t.configuration(), false, t.hash());
  }

  static StoredTemplate byUser(String configuration) {
    return new StoredTemplate(configuration, false, null);
  }

  boolean pristine() {
    return shippedHash != null;
  }

  String encode() {
    ObjectNode o = JSON.createObjectNode();
    o.put("configuration", configuration);
    o.put("disabled", disabled);
    if (shippedHash != null) {
      o.put("shippedHash", shippedHash);
    }
    return o.toString();
  }

  static StoredTemplate decode(String id, String body) {
    try {
      JsonNode o = JSON.readTree(body);
      JsonNode configuration = o == null ? null : o.get("configuration");
      if (configuration == null || !configuration.isTextual()) {
        throw new IllegalStateException("ui-template '" + id + "' has no configuration in its stored body");
      }
      JsonNode hash = o.get("shippedHash");
      return new StoredTemplate(configuration.asText(), o.path("disabled").asBoolean(false),
          hash == null || hash.isNull() ? null : hash.asText());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("ui-template '" + id + "' has an unreadable stored body", e);
    }
  }
}
