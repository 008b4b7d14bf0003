package io.sextant.server.rover;

import static io.sextant.server.rover.RoverProfiling.args;
import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.server.testing.TestServer;
import io.sextant.testkit.elasticsearch.ElasticsearchExtension;
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
      long latest = 0;
      // 40 polls, 100 ms apart, alternating: they span both collectors' task-cache refreshes.
      for (int i = 0; i < 40; i++) {
        TestServer target = i % 2 == 0 ? b : a;
        for (Command c : RoverProfiling.poll(target, balanced.agentId(), latest).getCommandsList()) {
          received.add(args(c).get("TaskId") + " " + args(c).get("ProcessId"));
          latest = Math.max(latest, ProfilingEndToEnd.updateTime(c));
        }
        Thread.sleep(100);
      }
      assertThat(received).containsExactlyInAnyOrder(id + " " + processId(procs.get(0)),
          id + " " + processId(procs.get(1)));
    }
  }
}
