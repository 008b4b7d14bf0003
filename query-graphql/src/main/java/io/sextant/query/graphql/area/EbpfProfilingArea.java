package io.sextant.query.graphql.area;

import static io.sextant.query.graphql.Fetchers.safe;

import graphql.schema.idl.RuntimeWiring;
import io.sextant.api.ebpf.ProfilingTask;
import io.sextant.api.id.EntityIds;
import io.sextant.api.storage.ProcessMeta;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.profiling.FlameGraph;
import io.sextant.core.profiling.NetworkSamplingRule;
import io.sextant.core.profiling.ProfilingAnalysis;
import io.sextant.core.profiling.ProfilingSchedulesQuery;
import io.sextant.core.profiling.ProfilingServices;
import io.sextant.core.profiling.ProfilingTaskService;
import io.sextant.core.profiling.TaskView;
import io.sextant.core.query.QueryDuration;
import io.sextant.query.graphql.Fetchers;
import io.sextant.query.graphql.QueryLimits;
import io.sextant.query.graphql.SchemaArea;
import java.time.Clock;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * ebpf-profiling.graphqls: fixed-time and network tasks (create, keep alive, list), schedules, the
 * creation dialog's data and flame-graph analysis. Refusals SkyWalking answers with {@code status:
 * false} are answered so; malformed arguments are GraphQL errors with the reason.
 */
public record EbpfProfilingArea(ProfilingServices p, QueryLimits limits, ZoneId zone) implements SchemaArea {

  @Override
  public void wire(RuntimeWiring.Builder w) {
    w.type("Mutation", t -> t
        .dataFetcher("createEBPFProfilingFixedTimeTask", safe(env -> {
          Map<String, Object> r = env.getArgument("request");
          Number start = (Number) r.get("startTime");
          return creation(p.tasks().createFixedTime((String) r.get("serviceId"), strings(r.get("processLabels")),
              start == null ? 0 : start.longValue(), ((Number) r.get("duration")).intValue(),
              (String) r.get("targetType")));
        }))
        .dataFetcher("createEBPFNetworkProfiling", safe(env -> {
          Map<String, Object> r = env.getArgument("request");
          return creation(p.tasks().createNetwork((String) r.get("instanceId"), rules(r.get("samplings"))));
        }))
        .dataFetcher("keepEBPFNetworkProfiling", safe(env -> {
          ProfilingTaskService.KeepResult k = p.tasks().keepNetwork(env.getArgument("taskId"));
          Map<String, Object> m = new LinkedHashMap<>();
          m.put("status", k.status());
          m.put("errorReason", k.errorReason());
          return m;
        })));
    w.type("Query", t -> t
        .dataFetcher("queryPrepareCreateEBPFProfilingTaskData", safe(env -> {
          String serviceId = env.getArgument("serviceId");
          if (Fetchers.isEmpty(serviceId)) {
            throw new IllegalArgumentException("please provide the service id");
          }
          ProfilingTaskService.Prepare prepare = p.tasks().prepare(serviceId);
          return Map.of("couldProfiling", prepare.couldProfiling(), "processLabels", prepare.processLabels());
        }))
        .dataFetcher("queryEBPFProfilingTasks", safe(env -> {
          String serviceId = env.getArgument("serviceId");
          String instanceId = env.getArgument("serviceInstanceId");
          if (Fetchers.isEmpty(serviceId) && Fetchers.isEmpty(instanceId)) {
            throw new IllegalArgumentException("please provide the service id or instance id");
          }
          Fetchers.selectsService(serviceId);
          Fetchers.selectsChild(instanceId);
          long from = 0;
          long to = 0;
          if (env.getArgument("duration") != null) {
            QueryDuration d = Fetchers.duration(env, limits);
            TimeBuckets buckets = new TimeBuckets(zone, Clock.system(zone));
            from = buckets.startMillis(d.start(), d.step());
            to = buckets.startMillis(TimeBuckets.plus(d.end(), d.step(), 1), d.step()) - 1;
          }
          String trigger = env.getArgument("triggerType");
          List<Map<String, Object>> out = new ArrayList<>();
          for (TaskView v : p.tasks().tasks(new ProfilingTaskService.TaskFilter(serviceId, instanceId,
              strings(env.getArgument("targets")), trigger == null ? ProfilingTask.FIXED_TIME : trigger, from, to))) {
            out.add(task(v));
          }
          return out;
        }))
        .dataFetcher("queryEBPFProfilingSchedules", safe(env -> {
          String taskId = env.getArgument("taskId");
          if (Fetchers.isEmpty(taskId)) {
            return List.of();
          }
          List<Map<String, Object>> out = new ArrayList<>();
          for (ProfilingSchedulesQuery.ScheduleView v : p.schedules().schedules(p.tasks().task(taskId), taskId)) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("scheduleId", v.schedule().scheduleId());
            m.put("taskId", v.schedule().taskId());
            m.put("process", process(v.schedule().processId(), v.process()));
            m.put("startTime", v.schedule().startTime());
            m.put("endTime", v.schedule().endTime());
            out.add(m);
          }
          return out;
        }))
        .dataFetcher("analysisEBPFProfilingResult", safe(env -> {
          List<String> schedules = strings(env.getArgument("scheduleIdList"));
          List<ProfilingAnalysis.TimeRange> ranges = new ArrayList<>();
          List<Map<String, Object>> given = env.getArgument("timeRanges");
          for (Map<String, Object> r : given) {
            ranges.add(new ProfilingAnalysis.TimeRange(((Number) r.get("start")).longValue(),
                ((Number) r.get("end")).longValue()));
          }
          String type = env.getArgument("aggregateType");
          FlameGraph g = p.analysis().analyze(schedules, ranges, "DURATION".equals(type)
              ? ProfilingAnalysis.AggregateType.DURATION : ProfilingAnalysis.AggregateType.COUNT);
          return analysis(g);
        })));
  }

  private static Map<String, Object> creation(ProfilingTaskService.CreationResult r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("status", r.status());
    m.put("errorReason", r.errorReason());
    m.put("id", r.id());
    return m;
  }

  private static Map<String, Object> task(TaskView v) {
    ProfilingTask t = v.task();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("taskId", t.taskId());
    m.put("serviceId", t.serviceId());
    m.put("serviceName", v.serviceName());
    m.put("serviceInstanceId", t.instanceId().isEmpty() ? null : t.instanceId());
    m.put("serviceInstanceName", v.instanceName());
    m.put("processLabels", t.processLabels());
    m.put("processId", t.processId().isEmpty() ? null : t.processId());
    m.put("processName", v.processName());
    m.put("taskStartTime", t.startTime());
    m.put("triggerType", t.triggerType());
    m.put("fixedTriggerDuration", t.fixedTriggerDurationSeconds());
    List<Map<String, Object>> causes = null;
    if (ProfilingTask.CONTINUOUS_PROFILING.equals(t.triggerType())) {
      causes = new ArrayList<>();
      for (TaskView.CauseView c : v.causes()) {
        Map<String, Object> cause = new LinkedHashMap<>();
        cause.put("type", c.type());
        Map<String, Object> single = null;
        Map<String, Object> uri = null;
        if (c.uriBased()) {
          uri = new LinkedHashMap<>();
          uri.put("uriRegex", c.uriRegex());
          uri.put("uriPath", c.uriPath());
          uri.put("threshold", c.threshold());
          uri.put("current", c.current());
        } else {
          single = new LinkedHashMap<>();
          single.put("threshold", c.threshold());
          single.put("current", c.current());
        }
        cause.put("singleValue", single);
        cause.put("uri", uri);
        cause.put("message", c.message());
        causes.add(cause);
      }
    }
    m.put("continuousProfilingCauses", causes);
    m.put("targetType", t.targetType());
    m.put("createTime", t.createTime());
    return m;
  }

  /** The schema's {@code Process}; a process no longer known keeps its id and empty fields. */
  private static Map<String, Object> process(String id, ProcessMeta p) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", id);
    m.put("name", p == null ? "" : p.name());
    m.put("serviceId", p == null ? "" : p.serviceId());
    m.put("serviceName", p == null ? "" : name(() -> EntityIds.parseServiceId(p.serviceId()).name()));
    m.put("instanceId", p == null ? "" : p.instanceId());
    m.put("instanceName", p == null ? "" : name(() -> EntityIds.parseChildId(p.instanceId()).name()));
    m.put("agentId", p == null ? "" : p.agentId());
    m.put("detectType", p == null ? "" : p.detectType());
    List<Map<String, Object>> attributes = new ArrayList<>();
    if (p != null) {
      p.properties().forEach((k, val) -> attributes.add(Map.of("name", k, "value", val)));
    }
    m.put("attributes", attributes);
    m.put("labels", p == null ? List.of() : p.labels());
    return m;
  }

  private static String name(Supplier<String> decode) {
    try {
      return decode.get();
    } catch (IllegalArgumentException e) {
      return "";
    }
  }

  private static Map<String, Object> analysis(FlameGraph g) {
    List<Map<String, Object>> trees = new ArrayList<>(g.trees().size());
    for (FlameGraph.Tree tree : g.trees()) {
      List<Map<String, Object>> elements = new ArrayList<>(tree.elements().size());
      for (FlameGraph.Element e : tree.elements()) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", e.id());
        m.put("parentId", e.parentId());
        m.put("symbol", e.symbol());
        m.put("stackType", e.stackType());
        m.put("dumpCount", e.dumpCount());
        elements.add(m);
      }
      trees.add(Map.of("elements", elements));
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("tip", g.tip());
    m.put("trees", trees);
    return m;
  }

  @SuppressWarnings("unchecked")
  private static List<String> strings(Object value) {
    return value == null ? List.of() : List.copyOf((List<String>) value);
  }

  @SuppressWarnings("unchecked")
  private static List<NetworkSamplingRule> rules(Object value) {
    if (value == null) {
      return List.of();
    }
    List<NetworkSamplingRule> rules = new ArrayList<>();
    for (Map<String, Object> r : (List<Map<String, Object>>) value) {
      Map<String, Object> s = (Map<String, Object>) r.get("settings");
      if (s == null) {
        throw new IllegalArgumentException("the rule sampling setting cannot be null");
      }
      rules.add(new NetworkSamplingRule((String) r.get("uriRegex"), (Integer) r.get("minDuration"),
          Boolean.TRUE.equals(r.get("when4xx")), Boolean.TRUE.equals(r.get("when5xx")),
          Boolean.TRUE.equals(s.get("requireCompleteRequest")), (Integer) s.get("maxRequestSize"),
          Boolean.TRUE.equals(s.get("requireCompleteResponse")), (Integer) s.get("maxResponseSize")));
    }
    return rules;
  }
}
