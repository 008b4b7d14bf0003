package io.sextant.server.rover;

import static io.sextant.server.rover.RoverProfiling.args;
import static io.sextant.server.rover.RoverProfiling.process;
import static io.sextant.server.rover.RoverProfiling.serviceId;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sextant.api.ebpf.ProfilingTask;
import io.sextant.api.storage.ManagedDocument;
import io.sextant.api.storage.ProcessMeta;
import io.sextant.core.profiling.TaskDocuments;
import io.sextant.server.testing.TestServer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.skywalking.apm.network.common.v3.Command;
import org.apache.skywalking.apm.network.common.v3.Commands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** What the profiling end-to-end tests share: a server, unique names per run, GraphQL helpers. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ProfilingEndToEnd {
  public static final ObjectMapper JSON = new ObjectMapper();
  public final String run = UUID.randomUUID().toString().substring(0, 8);
  public TestServer sextant;

  protected abstract java.util.Map<String, String> storage();

  @BeforeAll
  public void start() {
    sextant = new TestServer(storage());
  }

  @AfterAll
  public void stop() {
    sextant.close();
  }

  public String service(String name) {
    return name + "-" + run + ".shop";
  }

  /** The processes as Rover's report leaves them: stored and searchable (the receiver publishes too). */
  public static void seed(TestServer server, ProcessMeta... processes) {
    server.server.storage().metadata().upsertProcesses(List.of(processes));
    server.server.storage().publish();
  }

  public static JsonNode createFixed(TestServer server, String service, String target, int duration, String labels)
      throws Exception {
    return server.data("""
        mutation { r: createEBPFProfilingFixedTimeTask(request: {serviceId: "%s", processLabels: [%s],
          startTime: 0, duration: %d, targetType: %s}) { status errorReason id } }"""
        .formatted(serviceId(service), labels, duration, target)).get("r");
  }

  public static String createdId(JsonNode result) {
    assertThat(result.get("status").asBoolean()).as(result.toString()).isTrue();
    return result.get("id").asText();
  }

  public static List<Command> commands(Commands c) {
    return c.getCommandsList();
  }

  public static long updateTime(Command c) {
    return Long.parseLong(args(c).get("TaskUpdateTime"));
  }

  public static ProcessMeta proc(String service, String instance, String name, String agent) {
    return process(service, instance, name, agent, true, List.of());
  }

  public static JsonNode keep(TestServer sextant, String id) throws Exception {
    return sextant.data("mutation { r: keepEBPFNetworkProfiling(taskId: \"%s\") { status errorReason } }"
        .formatted(id)).get("r");
  }

  /**
   * Ages a task as time would: it started, was created and last updated {@code millis} ago (a network
   * task is extended only in its last minute). Returns the new start time.
   */
  public static long age(TestServer sextant, String id, long millis) {
    ManagedDocument doc = sextant.server.storage().management().get(TaskDocuments.KIND, id).orElseThrow();
    ProfilingTask task = TaskDocuments.fromDocument(doc);
    long aged = System.currentTimeMillis() - millis;
    ProfilingTask old = new ProfilingTask(task.taskId(), task.serviceId(), task.instanceId(), task.processId(),
        task.processLabels(), task.targetType(), task.triggerType(), aged, task.fixedTriggerDurationSeconds(),
        aged, aged, task.extensionConfigJson(), task.causes());
    sextant.server.storage().management().put(TaskDocuments.KIND, id, TaskDocuments.encode(old), doc.version());
    return aged;
  }

  /** Each tree as "id|parentId|symbol|stackType|dumpCount" lines. */
  public static List<List<String>> trees(TestServer sextant, String scheduleId, long from, long to, String type)
      throws Exception {
    JsonNode a = sextant.data("""
        { a: analysisEBPFProfilingResult(scheduleIdList: ["%s"], timeRanges: [{start: %d, end: %d}],
          aggregateType: %s) { tip trees { elements { id parentId symbol stackType dumpCount } } } }"""
        .formatted(scheduleId, from, to, type)).get("a");
    assertThat(a.get("tip").isNull()).isTrue();
    List<List<String>> out = new ArrayList<>();
    for (JsonNode tree : a.get("trees")) {
      List<String> lines = new ArrayList<>();
      for (JsonNode e : tree.get("elements")) {
        lines.add(e.get("id").asText() + "|" + e.get("parentId").asText() + "|" + e.get("symbol").asText() + "|"
            + e.get("stackType").asText() + "|" + e.get("dumpCount").asLong());
      }
      out.add(lines);
    }
    return out;
  }
}
