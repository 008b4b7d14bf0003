package io.sextant.server.rover;

import static io.sextant.server.rover.RoverProfiling.args;
import static org.assertj.core.api.Assertions.assertThat;

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
 * Rover's run end to end on a real Elasticsearch server; and Rover behind a balancer: its process
 * report lands on one collector, the task is created through the other, and its polls alternate
 * between the two, yet each process gets the task exactly once.
 */
class RoverJourneyOnElasticsearchIT extends RoverJourney {
  @RegisterExtension
  static final ElasticsearchExtension ES = ElasticsearchExtension.shared();

  @Override
  protected Map<String, String> storage() {
    return Map.of("storage.selector", "elasticsearch", "storage.elasticsearch.hosts", ES.hostAndPort());
  }

  @Test
  void aTaskReachesReportedProcessesOnceWhicheverCollectorRoverPolls() throws Exception {
    try (TestServer a = new TestServer(storage()); TestServer b = new TestServer(storage())) {
      RoverClient balanced = new RoverClient(a.grpcPort, "rover-balanced-" + run);
      String service = "details." + namespace;
      String pod = "details-v1-" + run;
      List<RoverClient.Proc> procs = List.of(
          RoverClient.pod(RoverClient.entity("MESH", service, pod, "ruby", "mesh-application"), 11, "details",
              "10.1.0.7", "ruby details.rb 9080", true),
          RoverClient.pod(RoverClient.entity("MESH_DP", service, pod, "envoy", "mesh-envoy"), 103, "istio-proxy",
              "10.1.0.7", "/usr/local/bin/envoy -c /etc/istio/proxy/envoy-rev.json", true));
      assertThat(balanced.report(procs).getProcessesCount()).isEqualTo(2);
      assertThat(balanced.keepAlive(procs).getCommandsCount()).isZero();

      String id = ProfilingEndToEnd.createdId(ProfilingEndToEnd.createFixed(b, service, "ON_CPU", 60, ""));
      List<String> received = new ArrayList<>();
      long[] latest = {0};
      int[] polls = {0};
      // Polls alternating between the collectors, until both processes' commands came and then for two
      // seconds more: past both collectors' task-cache refreshes (1 s), none comes again.
      Poll.Condition alternate = () -> {
        TestServer target = polls[0]++ % 2 == 0 ? b : a;
        for (Command c : RoverProfiling.poll(target, balanced.agentId(), latest[0]).getCommandsList()) {
          received.add(args(c).get("TaskId") + " " + args(c).get("ProcessId"));
          latest[0] = Math.max(latest[0], ProfilingEndToEnd.updateTime(c));
        }
        return true;
      };
      Poll.until("the task for both processes", Duration.ofSeconds(10),
          () -> alternate.holds() && received.size() >= 2);
      Poll.stays("no command twice", Duration.ofSeconds(2), () -> alternate.holds() && received.size() == 2);
      assertThat(received).containsExactlyInAnyOrder(id + " " + processId(procs.get(0)),
          id + " " + processId(procs.get(1)));
    }
  }
}
