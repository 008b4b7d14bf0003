package io.sextant.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps true what {@code Scope} promises: code that treats each kind of entity switches over it (or
 * asks {@code isRelation}/{@code isProcess}, themselves switches), so a new kind makes the compiler
 * list every place to handle it. A test for one kind ({@code == Scope.SERVICE}) escapes that list;
 * the few left are rules about exactly one kind, counted here so that a new one is a decision.
 */
class ScopeSwitchesTest {
  private static final Pattern ONE_KIND = Pattern.compile("[!=]= Scope\\.[A-Z_]+|Scope\\.[A-Z_]+ [!=]=");

  /** File → tests allowed, each a rule about one kind. */
  private static final Map<String, Integer> ALLOWED = Map.of(
      // Only service relations carry the tls/mtls components; the edge kind the switch chose.
      "EntityRegistry.java", 4,
      // Services rank among all services; a parent service narrows instances and endpoints.
      "MetricQueries.java", 1,
      // A service's display name is its own; instances and endpoints add their service's.
      "LegacyMetricReads.java", 1);

  @Test
  void onlyTheListedRulesTestForOneKindOfEntity() throws IOException {
    Map<String, Integer> found = new TreeMap<>();
    Path root = Path.of("../..");
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java") && p.toString().contains("src/main/java"))
          .toList()) {
        Matcher m = ONE_KIND.matcher(Files.readString(f));
        while (m.find()) {
          found.merge(f.getFileName().toString(), 1, Integer::sum);
        }
      }
    }
    assertThat(found).as("tests for one Scope outside a switch; switch over Scope instead, or list the rule here")
        .isEqualTo(new TreeMap<>(ALLOWED));
  }
}
