package io.sextant.query.graphql.area;

import static io.sextant.query.graphql.Fetchers.duration;
import static io.sextant.query.graphql.Fetchers.safe;

import graphql.schema.idl.RuntimeWiring;
import io.sextant.api.id.EntityIds;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.query.QueryDuration;
import io.sextant.core.query.RecordQueries;
import io.sextant.core.query.SampledRecord;
import io.sextant.core.query.mqe.MqeEntity;
import io.sextant.query.graphql.QueryLimits;
import io.sextant.query.graphql.SchemaArea;
import java.time.Clock;
import java.time.ZoneId;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Sampled records: {@code readRecords} (record.graphqls), its deprecated twin
 * {@code readSampledRecords} (metrics-v2) and {@code getTopNRecords} (top-n-records), all over
 * {@link RecordQueries}, which names the record when Sextant does not keep it.
 */
public record RecordsArea(RecordQueries records, QueryLimits limits, ZoneId zone) implements SchemaArea {
  @Override
  public void wire(RuntimeWiring.Builder w) {
    w.type("Query", t -> t
        .dataFetcher("readRecords", safe(env -> {
          Map<String, Object> c = env.getArgument("condition");
          @SuppressWarnings("unchecked")
          Map<String, Object> parent = (Map<String, Object>) c.get("parentEntity");
          return read((String) c.get("name"), MetricsArea.entity(parent), duration(env, limits),
              (Integer) c.get("topN"), c.get("order")).stream().map(RecordsArea::record).toList();
        }))
        .dataFetcher("readSampledRecords", safe(env -> {
          Map<String, Object> c = env.getArgument("condition");
          return read((String) c.get("name"), owner((String) c.get("parentService"), (Boolean) c.get("normal")),
              duration(env, limits), (Integer) c.get("topN"), c.get("order")).stream()
              .map(RecordsArea::record).toList();
        }))
        .dataFetcher("getTopNRecords", safe(env -> {
          Map<String, Object> c = env.getArgument("condition");
          @SuppressWarnings("unchecked")
          Map<String, Object> d = (Map<String, Object>) c.get("duration");
          QueryDuration duration = QueryDuration.parse((String) d.get("start"), (String) d.get("end"),
              String.valueOf(d.get("step")), limits.maxDurationPoints());
          EntityIds.ServiceIdParts service = EntityIds.parseServiceId((String) c.get("serviceId"));
          return read((String) c.get("metricName"), owner(service.name(), service.normal()), duration,
              (Integer) c.get("topN"), c.get("order")).stream().map(RecordsArea::topNRecord).toList();
        })));
  }

  private List<SampledRecord> read(String name, MqeEntity owner, QueryDuration d, int topN, Object order) {
    TimeBuckets buckets = new TimeBuckets(zone, Clock.systemUTC());
    long start = buckets.startMillis(d.start(), d.step());
    long end = buckets.startMillis(TimeBuckets.plus(d.end(), d.step(), 1), d.step()) - 1;
    return records.top(name, owner, start, end, topN, "ASC".equals(String.valueOf(order)));
  }

  private static MqeEntity owner(String service, Boolean normal) {
    return new MqeEntity(service == null || service.isEmpty() ? null : service, normal, null, null, null, null,
        null, null, null, null);
  }

  private static Map<String, Object> record(SampledRecord r) {
    Map<String, Object> m = new HashMap<>();
    m.put("name", r.name());
    m.put("id", r.id());
    m.put("value", r.value());
    m.put("refId", r.refId());
    return m;
  }

  private static Map<String, Object> topNRecord(SampledRecord r) {
    Map<String, Object> m = new HashMap<>();
    m.put("statement", r.name());
    m.put("latency", parseLong(r.value()));
    m.put("traceId", r.refId());
    return m;
  }

  private static long parseLong(String value) {
    try {
      return value == null ? 0 : Long.parseLong(value);
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
