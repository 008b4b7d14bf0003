package io.sextant.query.graphql.area;

import graphql.schema.idl.RuntimeWiring;
import io.sextant.api.component.CheckResult;
import io.sextant.query.graphql.SchemaArea;
import java.time.Clock;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/** common.graphqls and the platform part of metadata-v2: version, health, time. */
public record CommonArea(String version, Supplier<CheckResult> health, ZoneId zone, Clock clock) implements SchemaArea {
  @Override
  public void wire(RuntimeWiring.Builder w) {
    w.type("Query", t -> t
        .dataFetcher("version", env -> version)
        // booster-ui 10.3+ asks on every page which trace API to use; Sextant serves no traces.
        .dataFetcher("hasQueryTracesV2Support", env -> false)
        .dataFetcher("checkHealth", env -> {
          CheckResult r = health.get();
          Map<String, Object> out = new LinkedHashMap<>();
          out.put("score", r.ok() ? 0 : 1);
          out.put("details", r.detail());
          return out;
        })
        .dataFetcher("getTimeInfo", env -> {
          long now = clock.millis();
          ZoneOffset offset = zone.getRules().getOffset(java.time.Instant.ofEpochMilli(now));
          int seconds = offset.getTotalSeconds();
          String tz = String.format("%s%02d%02d", seconds < 0 ? "-" : "+", Math.abs(seconds) / 3600,
              Math.abs(seconds) % 3600 / 60);
          Map<String, Object> out = new LinkedHashMap<>();
          out.put("timezone", tz);
          out.put("currentTimestamp", now);
          return out;
        }));
    w.type("Mutation", t -> t.dataFetcher("version", env -> version));
  }
}
