package io.sextant.core.management;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A template shipped with Sextant: its stable id, its configuration as compact JSON text, the key
 * booster-ui files it under ({@code layer_entity_name}; null for Horizon's rows, filed by id) and a
 * hash of the configuration, kept in the stored body to tell a shipped template nobody changed from
 * an older or a user-changed one.
 */
public record ShippedTemplate(String id, String configuration, String nameKey, String hash) {
  public static ShippedTemplate of(String id, String configuration, String nameKey) {
    return new ShippedTemplate(id, configuration, nameKey, sha256(configuration));
  }

  static String sha256(String text) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
