package io.sextant.server.rover;

import static io.sextant.server.rover.RoverProfiling.args;
import static io.sextant.server.rover.RoverProfiling.poll;
import static io.sextant.server.rover.RoverProfiling.serviceId;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sextant.api.storage.ProcessMeta;
import io.sextant.server.testing.TestServer;
import io.sextant.testkit.elasticsearch.ElasticsearchExtension;
import io.sextant.testkit.poll.Poll;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.skywalking.apm.network.common.v3.Command;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two collectors on one Elasticsearch, each with its task cache (the default 1 s): a task created
 * through one collector is listed by the other and reaches a Rover exactly once, whichever collector
 * each of its polls lands on, as Rover polls behind a balancer (every poll carrying the newest
 * update time it has seen).
 */
class ProfilingOnElasticsearchIT {
  @RegisterExtension
  static final ElasticsearchExtension ES = ElasticsearchExtension.shared();

  @Test
  void aTaskCreatedThroughOneCollectorReachesRoverOnceWhicheverCollectorItPolls() throws Exception {
    Map<String, String> storage = Map.of("storage.selector", "elasticsearch", "storage.elasticsearch.hosts",
        ES.hostAndPort());
    try (TestServer a = new TestServer(storage); TestServer b = new TestServer(storage)) {
      String run = Long.toHexString(System.nanoTime());
      String svc = "es-" + run + ".shop";
      String agent = "rover-es-" + run;
      ProcessMeta p = ProfilingEndToEnd.proc(svc, "pod-1", "java", agent);

      String id = ProfilingEndToEnd.createdId(ProfilingEndToEnd.createFixed(a, svc, "ON_CPU", 60, ""));
      JsonNode listed = b.data("{ t: queryEBPFProfilingTasks(serviceId: \"%s\") { taskId } }"
          .formatted(serviceId(svc))).get("t");
      assertThat(listed).hasSize(1);
      assertThat(listed.get(0).get("taskId").asText()).isEqualTo(id);

      ProfilingEndToEnd.seed(a, p);
      List<String> received = new ArrayList<>();
      long[] latest = {0};
      int[] polls = {0};
      // Rover's polls alternate between the collectors (a balancer), until the task came and then for
      // two seconds more: past both collectors' task-cache refreshes (1 s), it does not come again.
      Poll.Condition alternate = () -> {
        TestServer target = polls[0]++ % 2 == 0 ? b : a;
        for (Command c : poll(target, agent, latest[0]).getCommandsList()) {
          received.add(args(c).get("TaskId"));
          latest[0] = Math.max(latest[0], Long.parseLong(args(c).get("TaskUpdateTime")));
        }
        return true;
      };
      Poll.until("the task received", Duration.ofSeconds(10), () -> alternate.holds() && !received.isEmpty());
      Poll.stays("the task received once", Duration.ofSeconds(2), () -> alternate.holds() && received.size() == 1);
      assertThat(received).containsExactly(id);
    }
  }
}
