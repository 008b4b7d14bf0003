package io.sextant.query.graphql.area;

import static io.sextant.query.graphql.Fetchers.safe;

import graphql.schema.idl.RuntimeWiring;
import io.sextant.api.ebpf.ContinuousProfilingPolicy.CheckItem;
import io.sextant.api.ebpf.ContinuousProfilingPolicy.Target;
import io.sextant.core.profiling.continuous.ContinuousProfilingQueries;
import io.sextant.core.profiling.continuous.MonitoringInstance;
import io.sextant.core.profiling.continuous.MonitoringProcess;
import io.sextant.core.profiling.continuous.PolicySetResult;
import io.sextant.core.profiling.continuous.PolicyTarget;
import io.sextant.query.graphql.SchemaArea;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * continuous-profiling.graphqls: set a service's policy, read it back with its triggers, and the
 * instances and processes Rover watches. A refused policy is {@code status: false} with SkyWalking's
 * reason, as in SkyWalking.
 */
public record ContinuousProfilingArea(ContinuousProfilingQueries continuous) implements SchemaArea {
  @Override
  public void wire(RuntimeWiring.Builder w) {
    w.type("Query", t -> t
        .dataFetcher("queryContinuousProfilingServiceTargets", safe(env -> continuous
            .serviceTargets(env.getArgument("serviceId")).stream().map(ContinuousProfilingArea::target).toList()))
        .dataFetcher("queryContinuousProfilingMonitoringInstances", safe(env -> continuous
            .monitoringInstances(env.getArgument("serviceId"), env.getArgument("target")).stream()
            .map(ContinuousProfilingArea::instance).toList())));
    w.type("Mutation", t -> t
        .dataFetcher("setContinuousProfilingPolicy", safe(env -> {
          Map<String, Object> request = env.getArgument("request");
          if (request == null) {
            throw new IllegalArgumentException("request is required");
          }
          return result(continuous.setPolicy((String) request.get("serviceId"), targets(request.get("targets"))));
        })));
  }

  @SuppressWarnings("unchecked")
  private static List<Target> targets(Object value) {
    List<Target> out = new ArrayList<>();
    for (Map<String, Object> t : (List<Map<String, Object>>) value) {
      List<CheckItem> items = new ArrayList<>();
      for (Map<String, Object> i : (List<Map<String, Object>>) t.get("checkItems")) {
        items.add(new CheckItem((String) i.get("type"), (String) i.get("threshold"), (Integer) i.get("period"),
            (Integer) i.get("count"), (List<String>) i.get("uriList"), (String) i.get("uriRegex")));
      }
      out.add(new Target((String) t.get("targetType"), items));
    }
    return out;
  }

  private static Map<String, Object> result(PolicySetResult r) {
    Map<String, Object> out = new HashMap<>();
    out.put("status", r.status());
    out.put("errorReason", r.errorReason());
    return out;
  }

  private static Map<String, Object> target(PolicyTarget t) {
    Map<String, Object> out = new HashMap<>();
    out.put("type", t.type());
    out.put("checkItems", t.checkItems().stream().map(ContinuousProfilingArea::item).toList());
    out.put("triggeredCount", t.triggeredCount());
    out.put("lastTriggerTimestamp", t.lastTriggerTimestamp());
    return out;
  }

  private static Map<String, Object> item(CheckItem i) {
    Map<String, Object> out = new HashMap<>();
    out.put("type", i.type());
    out.put("threshold", i.threshold());
    out.put("period", i.period());
    out.put("count", i.count());
    out.put("uriList", i.uriList());
    out.put("uriRegex", i.uriRegex());
    return out;
  }

  private static Map<String, Object> instance(MonitoringInstance i) {
    Map<String, Object> out = new HashMap<>();
    out.put("id", i.id());
    out.put("name", i.name());
    List<Map<String, String>> attributes = new ArrayList<>();
    i.attributes().entrySet().stream().sorted(Map.Entry.comparingByKey())
        .forEach(e -> attributes.add(Map.of("name", e.getKey(), "value", e.getValue())));
    out.put("attributes", attributes);
    out.put("triggeredCount", i.triggeredCount());
    out.put("lastTriggerTimestamp", i.lastTriggerTimestamp());
    out.put("processes", i.processes().stream().map(ContinuousProfilingArea::process).toList());
    return out;
  }

  private static Map<String, Object> process(MonitoringProcess p) {
    Map<String, Object> out = new HashMap<>();
    out.put("id", p.id());
    out.put("name", p.name());
    out.put("detectType", p.detectType());
    out.put("labels", p.labels());
    out.put("triggeredCount", p.triggeredCount());
    out.put("lastTriggerTimestamp", p.lastTriggerTimestamp());
    return out;
  }
}
