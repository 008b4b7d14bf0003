package io.sextant.server.rover;

import static io.sextant.server.rover.ContinuousProfilingEndToEndTest.OK;
import static io.sextant.server.rover.ContinuousProfilingEndToEndTest.POLICY;
import static io.sextant.server.rover.ContinuousProfilingEndToEndTest.policyJson;
import static io.sextant.server.rover.ContinuousProfilingEndToEndTest.poll;
import static io.sextant.server.rover.ContinuousProfilingEndToEndTest.setPolicy;
import static io.sextant.server.rover.ContinuousProfilingEndToEndTest.targets;
import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.id.EntityIds;
import io.sextant.server.testing.TestServer;
import io.sextant.testkit.elasticsearch.ElasticsearchExtension;
import io.sextant.testkit.poll.Poll;
import java.time.Duration;
import java.util.Map;
import org.apache.skywalking.apm.network.common.v3.Commands;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two collectors on one Elasticsearch: a policy set through one is read back through the other's
 * GraphQL and reaches a Rover polling the other, with the same uuid from both.
 */
class ContinuousProfilingOnElasticsearchIT {
  @RegisterExtension
  static final ElasticsearchExtension ES = ElasticsearchExtension.shared();

  private static TestServer collector(String prefix, String id) {
    return new TestServer(Map.of("storage.selector", "elasticsearch", "storage.elasticsearch.hosts",
        ES.hostAndPort(), "storage.elasticsearch.indexPrefix", prefix, "core.collectorId", id,
        "receiver.ebpf.continuousPolicyCacheSeconds", "1"));
  }

  @Test
  void aPolicySetThroughOneCollectorReachesRoverThroughTheOther() throws Exception {
    String prefix = "cp" + System.nanoTime();
    String service = "shop";
    String serviceId = EntityIds.serviceId(service, true);
    try (TestServer first = collector(prefix, "a"); TestServer second = collector(prefix, "b")) {
      assertThat(setPolicy(first, serviceId, POLICY)).isEqualTo(OK);

      assertThat(targets(second, serviceId)).isEqualTo(targets(first, serviceId));
      assertThat(targets(second, serviceId)).hasSize(2);
      String fromSecond = policyJson(poll(second, service, ""));
      assertThat(policyJson(poll(first, service, ""))).isEqualTo(fromSecond);
      String uuid = ContinuousProfilingEndToEndTest.JSON.readTree(fromSecond).get(0).get("UUID").asText();
      assertThat(poll(second, service, uuid).getCommandsList()).isEmpty();
      assertThat(poll(first, service, uuid).getCommandsList()).isEmpty();

      assertThat(setPolicy(second, serviceId, "")).isEqualTo(OK);
      // Through the other collector within the configured cache time (1 s).
      Commands switchedOff = Poll.until("the switch-off through the first collector", Duration.ofSeconds(5),
          () -> poll(first, service, uuid), c -> c.getCommandsCount() > 0);
      assertThat(policyJson(switchedOff)).matches("\\[\\{\"ServiceName\":\"shop\",\"UUID\":"
          + "\"[0-9a-f]{128}\",\"Profiling\":\\{}}]");
      assertThat(targets(first, serviceId)).isEmpty();
    }
  }
}
