package io.sextant.server.dashboards;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The dashboards Sextant ships, read from the classpath exactly as the template loader reads them:
 * {@code ui-templates/index.txt} names one JSON file per line ({@code #} starts a comment), each file
 * an object {@code {id, configuration}}.
 */
public final class ShippedDashboards {
  public static final String FOLDER = "ui-templates/";
  private static final ObjectMapper JSON = new ObjectMapper();

  private ShippedDashboards() {}

  /** Every shipped dashboard, in index order. */
  public static List<JsonNode> load() {
    List<JsonNode> out = new ArrayList<>();
    for (String line : read(FOLDER + "index.txt").split("\n", -1)) {
      String file = line.strip();
      if (file.isEmpty() || file.startsWith("#")) {
        continue;
      }
      try {
        out.add(JSON.readTree(read(FOLDER + file)));
      } catch (IOException e) {
        throw new UncheckedIOException("ui-templates/" + file + " is not valid JSON", e);
      }
    }
    return out;
  }

  private static String read(String resource) {
    try (InputStream in = ShippedDashboards.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is not on the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
