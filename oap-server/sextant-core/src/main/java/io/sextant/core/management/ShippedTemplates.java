package io.sextant.core.management;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the dashboards shipped as classpath resources: every {@code <dir>/index.txt} on the classpath
 * (one file name per line, {@code #} comments) names files in {@code <dir>/}, each one JSON object
 * {@code {"id": ..., "configuration": {...}}}. A bad file is a build mistake, so it fails loudly,
 * naming the file; so do two files with one id or one {@code layer_entity_name}.
 */
public final class ShippedTemplates {
  /** Where Sextant's own dashboards live. */
  public static final String DEFAULT_DIR = "ui-templates";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_FILE_BYTES = TemplateConfiguration.MAX_CHARS * 4;

  private ShippedTemplates() {}

  public static List<ShippedTemplate> fromClasspath() {
    return fromClasspath(ShippedTemplates.class.getClassLoader(), DEFAULT_DIR);
  }

  public static List<ShippedTemplate> fromClasspath(ClassLoader loader, String dir) {
    List<ShippedTemplate> out = new ArrayList<>();
    Map<String, String> fileById = new HashMap<>();
    Map<String, String> fileByNameKey = new HashMap<>();
    try {
      for (URL index : Collections.list(loader.getResources(dir + "/index.txt"))) {
        for (String file : fileNames(read(index))) {
          URL url = loader.getResource(dir + "/" + file);
          if (url == null) {
            throw new IllegalStateException(index + " names " + file + ", which is not in " + dir + "/");
          }
          ShippedTemplate t = parse(dir + "/" + file, read(url));
          String sameId = fileById.putIfAbsent(t.id(), file);
          if (sameId != null) {
            throw new IllegalStateException(dir + "/" + file + " has the id '" + t.id() + "' of " + sameId);
          }
          String sameName = fileByNameKey.putIfAbsent(t.nameKey(), file);
          if (sameName != null) {
            throw new IllegalStateException(dir + "/" + file + " has the layer_entity_name '" + t.nameKey()
                + "' of " + sameName);
          }
          out.add(t);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading shipped UI templates from " + dir, e);
    }
    return out;
  }

  static List<String> fileNames(String index) {
    return index.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
  }

  static ShippedTemplate parse(String file, String text) {
    try {
      JsonNode root = JSON.readTree(text);
      if (root == null || !root.isObject()) {
        throw new IllegalArgumentException("it must be one JSON object {\"id\": ..., \"configuration\": {...}}");
      }
      JsonNode id = root.get("id");
      if (id == null || !id.isTextual() || id.asText().isBlank()) {
        throw new IllegalArgumentException("it needs a non-empty string 'id'");
      }
      JsonNode configuration = TemplateConfiguration.checked(root.get("configuration"));
      return ShippedTemplate.of(id.asText(), JSON.writeValueAsString(configuration),
          TemplateConfiguration.nameKey(configuration));
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalStateException("shipped UI template " + file + " is not valid: " + e.getMessage(), e);
    }
  }

  private static String read(URL url) throws IOException {
    try (InputStream in = url.openStream()) {
      byte[] bytes = in.readNBytes(MAX_FILE_BYTES + 1);
      if (bytes.length > MAX_FILE_BYTES) {
        throw new IOException(url + " is larger than " + MAX_FILE_BYTES + " bytes");
      }
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }
}
