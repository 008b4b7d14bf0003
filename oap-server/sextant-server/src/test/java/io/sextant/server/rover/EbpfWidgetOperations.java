package io.sextant.server.rover;

import com.fasterxml.jackson.databind.JsonNode;
import io.sextant.server.testing.TestServer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The GraphQL operations booster-ui 10.1's eBPF widgets and the process dashboards' selectors send,
 * with the operation names, arguments, variables and selections the UI uses (read from its stores
 * and fragments): the eBPF Profiling tab (prepare, create, list, schedules, flame-graph analysis), the
 * Network Profiling tab (create, list, keep alive, process topology), the Continuous Profiling tab
 * (policies, set a policy, monitored instances), the Task Timeline (continuous tasks) and the
 * process selectors ({@code listProcesses}, {@code getProcess}). Each is sent in the UI's order, as
 * one HTTP request with variables; the answers are kept for the caller to check.
 */
public final class EbpfWidgetOperations {
  private static final String PROCESS_FIELDS = "id value: name label: name serviceId serviceName instanceId "
      + "instanceName agentId detectType attributes { name value }";
  private static final String TASK_FIELDS = "taskId serviceName serviceId serviceInstanceId serviceInstanceName "
      + "processLabels processName processId taskStartTime triggerType fixedTriggerDuration targetType createTime "
      + "continuousProfilingCauses { type singleValue { threshold current } "
      + "uri { uriRegex uriPath threshold current } message }";

  /** One operation's answer: the UI's operation name and the whole GraphQL response. */
  public record Answer(String operation, JsonNode response) {
    public boolean failed() {
      return response.has("errors") && !response.get("errors").isEmpty();
    }

    public JsonNode data(String field) {
      return response.path("data").path(field);
    }
  }

  private final TestServer sextant;
  private final List<Answer> answers = new ArrayList<>();

  public EbpfWidgetOperations(TestServer sextant) {
    this.sextant = sextant;
  }

  /** Everything the widgets send for one service and instance, with the page's duration (epoch ms span). */
  public List<Answer> sendAll(String serviceId, String instanceId, String processId, Map<String, Object> duration,
      long now) throws Exception {
    // Process and process-relation dashboards: their selectors.
    send("getProcesses", "query queryProcesses($instanceId: ID!, $duration: Duration!) { processes: "
        + "listProcesses(instanceId: $instanceId, duration: $duration) { " + PROCESS_FIELDS + " labels } }",
        vars("instanceId", instanceId, "duration", duration));
    send("queryProcess", "query queryProcess($processId: ID!) { process: getProcess(processId: $processId) { "
        + PROCESS_FIELDS + " } }", vars("processId", processId));

    // eBPF Profiling (service dashboard).
    send("getCreateTaskData", "query queryCreateTaskData($serviceId: ID!) { createTaskData: "
        + "queryPrepareCreateEBPFProfilingTaskData(serviceId: $serviceId) { couldProfiling processLabels } }",
        vars("serviceId", serviceId));
    Answer created = send("saveEBPFTask", "mutation createEBPFTask($request: "
        + "EBPFProfilingTaskFixedTimeCreationRequest!) { createTaskData: createEBPFProfilingFixedTimeTask("
        + "request: $request) { status errorReason id } }", vars("request", vars("serviceId", serviceId,
            "processLabels", List.of(), "startTime", now, "duration", 60, "targetType", "ON_CPU")));
    tasks(serviceId, null, List.of("ON_CPU", "OFF_CPU"), "FIXED_TIME");
    String taskId = created.data("createTaskData").path("id").asText();
    Answer schedules = send("getEBPFSchedules", "query queryEBPFSchedules($taskId: ID!) { eBPFSchedules: "
        + "queryEBPFProfilingSchedules(taskId: $taskId) { scheduleId taskId process { id name serviceId serviceName "
        + "instanceId instanceName agentId detectType attributes { name value } labels } startTime endTime } }",
        vars("taskId", taskId));
    List<String> scheduleIds = new ArrayList<>();
    schedules.data("eBPFSchedules").forEach(s -> scheduleIds.add(s.path("scheduleId").asText()));
    send("getEBPFResult", "query analysisEBPFResult($scheduleIdList: [ID!]!, $timeRanges: "
        + "[EBPFProfilingAnalyzeTimeRange!]!, $aggregateType: EBPFProfilingAnalyzeAggregateType) { "
        + "analysisEBPFResult: analysisEBPFProfilingResult(scheduleIdList: $scheduleIdList, timeRanges: $timeRanges, "
        + "aggregateType: $aggregateType) { tip trees { elements { id parentId symbol stackType dumpCount } } } }",
        vars("scheduleIdList", scheduleIds.isEmpty() ? List.of("no-schedule-yet") : scheduleIds, "timeRanges",
            List.of(vars("start", now - 60_000, "end", now + 60_000)), "aggregateType", "COUNT"));

    // Network Profiling (instance dashboard): as its "new task" form sends a sampling rule.
    Answer network = send("newNetworkProfiling", "mutation createNetworkProfiling($request: "
        + "EBPFProfilingNetworkTaskRequest!) { createEBPFNetworkProfiling(request: $request) { status errorReason "
        + "id } }", vars("request", vars("instanceId", instanceId, "samplings", List.of(vars("uriRegex", "/reviews.*",
            "when4xx", true, "when5xx", true, "minDuration", 100, "settings",
            vars("requireCompleteRequest", true, "requireCompleteResponse", true))))));
    tasks(serviceId, instanceId, List.of("NETWORK"), "FIXED_TIME");
    send("aliveNetworkProfiling", "mutation keepNetworkProfiling($taskId: ID!) { keepEBPFNetworkProfiling("
        + "taskId: $taskId) { status errorReason } }",
        vars("taskId", network.data("createEBPFNetworkProfiling").path("id").asText()));
    send("getProcessTopology", "query queryData($serviceInstanceId: ID!, $duration: Duration!) { topology: "
        + "getProcessTopology(serviceInstanceId: $serviceInstanceId, duration: $duration) { nodes { id name isReal "
        + "serviceName serviceId serviceInstanceId serviceInstanceName } calls { id source detectPoints target "
        + "sourceComponents targetComponents } } }", vars("serviceInstanceId", instanceId, "duration", duration));

    // Continuous Profiling (service dashboard): a policy as the policy form saves it, then the lists.
    send("editStrategy", "mutation editStrategy($request: ContinuousProfilingPolicyCreation!) { strategy: "
        + "setContinuousProfilingPolicy(request: $request) { errorReason status } }", vars("request", vars(
            "serviceId", serviceId, "targets", List.of(vars("targetType", "ON_CPU", "checkItems", List.of(vars(
                "type", "PROCESS_CPU", "threshold", "80", "period", 10, "count", 3, "uriList", null,
                "uriRegex", null)))))));
    send("getStrategyList", "query getStrategyList($serviceId: ID!) { strategyList: "
        + "queryContinuousProfilingServiceTargets(serviceId: $serviceId) { type checkItems { type threshold period "
        + "count uriList uriRegex } } }", vars("serviceId", serviceId));
    send("getMonitoringInstances", "query continuousProfilingMonitoringInstances($serviceId: ID!, $target: "
        + "ContinuousProfilingTargetType!) { instances: queryContinuousProfilingMonitoringInstances(serviceId: "
        + "$serviceId, target: $target) { id name attributes { name value } triggeredCount lastTriggerTimestamp "
        + "processes { id name detectType labels lastTriggerTimestamp triggeredCount } } }",
        vars("serviceId", serviceId, "target", "ON_CPU"));

    // Task Timeline (process dashboard): the continuous-profiling tasks of the instance.
    tasks(serviceId, instanceId, List.of("ON_CPU"), "CONTINUOUS_PROFILING");
    return answers;
  }

  private Answer tasks(String serviceId, String instanceId, List<String> targets, String trigger) throws Exception {
    return send("getEBPFTasks", "query queryEBPFTasks($serviceId: ID, $serviceInstanceId: ID, $targets: "
        + "[EBPFProfilingTargetType!], $triggerType: EBPFProfilingTriggerType) { queryEBPFTasks: "
        + "queryEBPFProfilingTasks(serviceId: $serviceId, serviceInstanceId: $serviceInstanceId, targets: $targets, "
        + "triggerType: $triggerType) { " + TASK_FIELDS + " } }", vars("serviceId", serviceId, "serviceInstanceId",
            instanceId, "targets", targets, "triggerType", trigger));
  }

  private Answer send(String operation, String query, Map<String, Object> variables) throws Exception {
    Answer a = new Answer(operation, sextant.graphql(query, variables));
    answers.add(a);
    return a;
  }

  /** Variables as the UI's JSON has them (nulls kept: the UI sends them). */
  public static Map<String, Object> vars(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }
}
