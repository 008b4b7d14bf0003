package io.sextant.core.management;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Horizon's templates as Sextant ships them (a directory an operator may edit): each file {@code
 * <kind>.<key>.json} holds one template's content and becomes the row {@code horizon.<kind>.<key>}
 * of the template store, wrapped the way Horizon wraps what it stores: {@code {"content": ...,
 * "kind": ..., "name": ..., "version": 1}}, object keys sorted at every level, as Horizon's
 * {@code serializeEnvelope} writes them. Horizon seeds only rows that are absent, so these, installed
 * first, are what it renders.
 */
public final class HorizonTemplates {
  /** Horizon's row kinds and keys ({@code logic/templates/names.ts} of Horizon v0.7.0). */
  private static final Pattern FILE =
      Pattern.compile("(overview|layer|alert|theme|time-defaults|infra-3d)\\.([A-Za-z0-9_-]+)\\.json");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_FILE_BYTES = TemplateConfiguration.MAX_CHARS;

  private HorizonTemplates() {}

  /**
   * Every {@code <kind>.<key>.json} in {@code dir}, by name; other files are ignored. A file that is
   * not one JSON object, or is too large, fails naming it: it is an operator's edit to fix.
   */
  public static List<ShippedTemplate> fromDirectory(Path dir) throws IOException {
    List<ShippedTemplate> out = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : files.sorted().toList()) {
        Matcher m = FILE.matcher(file.getFileName().toString());
        if (m.matches()) {
          out.add(read(file, m.group(1), m.group(2)));
        }
      }
    }
    return out;
  }

  private static ShippedTemplate read(Path file, String kind, String key) throws IOException {
    if (Files.size(file) > MAX_FILE_BYTES) {
      throw new IllegalArgumentException(file + " is larger than " + MAX_FILE_BYTES + " bytes");
    }
    JsonNode content;
    try {
      content = JSON.readTree(file.toFile());
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(file + " is not JSON: " + e.getOriginalMessage());
    }
    if (content == null || !content.isObject()) {
      throw new IllegalArgumentException(file + " must hold one JSON object, the template's content");
    }
    String name = "horizon." + kind + "." + key;
    return ShippedTemplate.of(name, envelope(kind, name, content), null);
  }

  /** The stored configuration of a row: Horizon's envelope around {@code content}, keys sorted. */
  static String envelope(String kind, String name, JsonNode content) {
    StringBuilder out = new StringBuilder();
    canonical(JSON.createObjectNode().put("kind", kind).put("name", name).put("version", 1)
        .set("content", content), out);
    return out.toString();
  }

  /** JSON with object keys sorted by UTF-16 code unit at every level, as Horizon compares rows. */
  private static void canonical(JsonNode node, StringBuilder out) {
    if (node.isObject()) {
      Map<String, JsonNode> sorted = new TreeMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext();) {
        Map.Entry<String, JsonNode> e = it.next();
        sorted.put(e.getKey(), e.getValue());
      }
      out.append('{');
      String separator = "";
      for (Map.Entry<String, JsonNode> e : sorted.entrySet()) {
        out.append(separator).append(JSON.getNodeFactory().textNode(e.getKey())).append(':');
        canonical(e.getValue(), out);
        separator = ",";
      }
      out.append('}');
    } else if (node.isArray()) {
      out.append('[');
      for (int i = 0; i < node.size(); i++) {
        out.append(i == 0 ? "" : ",");
        canonical(node.get(i), out);
      }
      out.append(']');
    } else {
      out.append(node);
    }
  }
}
