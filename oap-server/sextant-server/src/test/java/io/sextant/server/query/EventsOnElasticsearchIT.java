package io.sextant.server.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.sextant.server.testing.TestServer;
import io.sextant.testkit.elasticsearch.ElasticsearchExtension;
import java.util.List;
import java.util.Map;
import org.apache.skywalking.apm.network.event.v3.Event;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The end-to-end event contract on a real Elasticsearch server, and events outliving a restart. */
class EventsOnElasticsearchIT extends EventsEndToEnd {
  @RegisterExtension
  static final ElasticsearchExtension ES = ElasticsearchExtension.shared();

  @Override
  protected Map<String, String> storage() {
    return Map.of("storage.selector", "elasticsearch", "storage.elasticsearch.hosts", ES.hostAndPort());
  }

  @Test
  void eventsSurviveARestartAndAnEndMergesIntoAStartWrittenBeforeIt() throws Exception {
    String uuid = "across-restart-" + run;
    try (TestServer first = new TestServer(storage())) {
      Status start = report(first, List.of(event(uuid, "orders", "Upgrade").setMessage("upgrading")
          .putParameters("from", "1.0").setStartTime(base + 1_000).build()));
      assertThat(start.getCode()).isEqualTo(Status.Code.OK);
    }

    try (TestServer second = new TestServer(storage())) {
      // A new process remembers nothing: the merge reads the start back from Elasticsearch.
      Status end = report(second, List.of(Event.newBuilder().setUuid(uuid).setLayer("GENERAL")
          .setMessage("upgraded").setEndTime(base + 90_000).build()));
      assertThat(end.getCode()).isEqualTo(Status.Code.OK);

      assertThat(byUuid(second, uuid)).isEqualTo(json("""
          [{"uuid":"%s","source":{"service":"orders","serviceInstance":"","endpoint":""},"name":"Upgrade",
            "type":"Normal","message":"upgraded","parameters":[{"key":"from","value":"1.0"}],
            "startTime":%d,"endTime":%d,"layer":"GENERAL"}]""".formatted(uuid, base + 1_000, base + 90_000)));
    }
  }
}
