package io.sextant.api.config;

import java.util.List;

/**
 * Validated configuration values by full path ({@code storage.elasticsearch.hosts}). A plugin reads
 * only the keys it declared; asking for an undeclared key is a programming error.
 */
public interface Settings {
  int integer(String path);

  String string(String path);

  boolean bool(String path);

  /** A comma-separated value as a list, blanks around commas trimmed. */
  default List<String> list(String path) {
    String value = string(path).trim();
    return value.isEmpty() ? List.of() : List.of(value.split("\\s*,\\s*"));
  }
}
