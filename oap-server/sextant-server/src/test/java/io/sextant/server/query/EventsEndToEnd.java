package io.sextant.server.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.linecorp.armeria.client.grpc.GrpcClients;
import io.grpc.Status;
import io.micrometer.core.instrument.Counter;
import io.sextant.server.testing.TestServer;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.skywalking.apm.network.event.v3.Event;
import org.apache.skywalking.apm.network.event.v3.EventServiceGrpc;
import org.apache.skywalking.apm.network.event.v3.Source;
import org.apache.skywalking.apm.network.event.v3.Type;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Events over real gRPC client streams (the published {@code EventService} stubs) into a real
 * server, read back with real HTTP {@code queryEvents}: exactly the events that went in come out,
 * a start and its end merged into one, filtered, paged and ordered as SkyWalking 10.1 does.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class EventsEndToEnd {
  public static final DateTimeFormatter MINUTE =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm").withZone(ZoneOffset.UTC);
  public static final String FIELDS = "events { uuid source { service serviceInstance endpoint } name type message "
      + "parameters { key value } startTime endTime layer }";
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Keeps runs apart on a store that outlives a test class. */
  public final String run = UUID.randomUUID().toString().substring(0, 8);
  /** Half an hour ago, on a minute: well inside every retention. */
  public final long base = (System.currentTimeMillis() / 60_000 - 30) * 60_000;
  public TestServer sextant;

  /** Configuration that selects the storage backend under test. */
  protected abstract Map<String, String> storage();

  @BeforeAll
  public void start() {
    sextant = new TestServer(storage());
  }

  @AfterAll
  public void stop() {
    sextant.close();
  }

  public static Status report(TestServer server, List<Event> events) throws Exception {
    EventServiceGrpc.EventServiceStub stub = GrpcClients.builder("http://127.0.0.1:" + server.grpcPort)
        .build(EventServiceGrpc.EventServiceStub.class);
    return TestServer.clientStream(stub::collect, events);
  }

  public Status report(Event... events) throws Exception {
    return report(sextant, List.of(events));
  }

  public static Event.Builder event(String uuid, String service, String name) {
    return Event.newBuilder().setUuid(uuid).setName(name).setLayer("GENERAL")
        .setSource(Source.newBuilder().setService(service).build());
  }

  public static JsonNode byUuid(TestServer server, String uuid) throws Exception {
    return server.data("{ queryEvents(condition: {uuid: \"" + uuid + "\", paging: {pageNum: 1, pageSize: 10}}) { "
        + FIELDS + " } }").get("queryEvents").get("events");
  }

  public JsonNode query(String condition) throws Exception {
    return sextant.data("{ queryEvents(condition: {" + condition + "}) { " + FIELDS + " } }")
        .get("queryEvents").get("events");
  }

  public static List<String> uuids(JsonNode events) {
    List<String> out = new ArrayList<>();
    events.forEach(e -> out.add(e.get("uuid").asText()));
    return out;
  }

  public static JsonNode json(String text) throws Exception {
    return JSON.readTree(text);
  }

  public double rejected(String reason) {
    Counter c = sextant.server.registry().find("sextant_receiver_records_rejected").tag("receiver", "event")
        .tag("reason", reason).counter();
    return c == null ? 0 : c.count();
  }

  public double accepted() {
    return sextant.server.registry().find("sextant_receiver_records_accepted").tag("receiver", "event").counter()
        .count();
  }

  @Test
  public void aStartAndItsEndReportedOnTwoStreamsAreOneEvent() throws Exception {
    String uuid = "upgrade-" + run;
    double acceptedBefore = accepted();
    Status start = report(event(uuid, "shop", "Upgrade").setType(Type.Normal)
        .setSource(Source.newBuilder().setService("shop").setServiceInstance("shop-1").setEndpoint("GET:/cart"))
        .setMessage("Upgrading from 1.0").putParameters("from", "1.0").setStartTime(base + 1_000).build());
    assertThat(start.getCode()).isEqualTo(Status.Code.OK);
    assertThat(byUuid(sextant, uuid).get(0).get("endTime").asLong()).isZero();

    Status end = report(event(uuid, "shop", "Upgrade").setType(Type.Error)
        .setSource(Source.newBuilder().setService("shop").setServiceInstance("shop-1").setEndpoint("GET:/cart"))
        .setMessage("Upgrade from 1.0 to 2.0 failed").putParameters("from", "1.0").putParameters("to", "2.0")
        .setEndTime(base + 61_000).build());

    assertThat(end.getCode()).isEqualTo(Status.Code.OK);
    assertThat(byUuid(sextant, uuid)).isEqualTo(json("""
        [{"uuid":"%s","source":{"service":"shop","serviceInstance":"shop-1","endpoint":"GET:/cart"},
          "name":"Upgrade","type":"Error","message":"Upgrade from 1.0 to 2.0 failed",
          "parameters":[{"key":"from","value":"1.0"},{"key":"to","value":"2.0"}],
          "startTime":%d,"endTime":%d,"layer":"GENERAL"}]""".formatted(uuid, base + 1_000, base + 61_000)));
    assertThat(accepted() - acceptedBefore).isEqualTo(2);
  }

  @Test
  public void anEndReportMayCarryOnlyTheUuidLayerAndEndTime() throws Exception {
    String uuid = "restart-" + run;
    assertThat(report(event(uuid, "cart", "Restart").setMessage("restarting").setStartTime(base + 2_000).build())
        .getCode()).isEqualTo(Status.Code.OK);

    Status end = report(Event.newBuilder().setUuid(uuid).setLayer("GENERAL").setEndTime(base + 9_000).build());

    assertThat(end.getCode()).isEqualTo(Status.Code.OK);
    assertThat(byUuid(sextant, uuid)).isEqualTo(json("""
        [{"uuid":"%s","source":{"service":"cart","serviceInstance":"","endpoint":""},"name":"Restart",
          "type":"Normal","message":"restarting","parameters":null,"startTime":%d,"endTime":%d,"layer":"GENERAL"}]"""
        .formatted(uuid, base + 2_000, base + 9_000)));
  }

  @Test
  public void anEndReportedBeforeItsStartKeepsBothTimes() throws Exception {
    String uuid = "reboot-" + run;
    Event end = event(uuid, "db", "Reboot").setMessage("rebooted").setEndTime(base + 30_000).build();
    Event start = event(uuid, "db", "Reboot").setMessage("rebooting").setStartTime(base + 3_000).build();

    // One stream, end first: both go through the same read-modify-write.
    assertThat(report(end, start).getCode()).isEqualTo(Status.Code.OK);

    JsonNode e = byUuid(sextant, uuid);
    assertThat(e).hasSize(1);
    assertThat(e.get(0).get("startTime").asLong()).isEqualTo(base + 3_000);
    assertThat(e.get(0).get("endTime").asLong()).isEqualTo(base + 30_000);
    assertThat(e.get(0).get("message").asText()).isEqualTo("rebooting");
  }

  @Test
  public void queryEventsFiltersPagesAndOrdersAsSkyWalking() throws Exception {
    String service = "filtered-" + run;
    List<Event> events = new ArrayList<>();
    for (int k = 1; k <= 5; k++) {
      long startTime = base + k * 60_000L + 1_000;
      Event.Builder e = event(service + "-e" + k, service, k == 1 ? "Restart" : "Upgrade")
          .setSource(Source.newBuilder().setService(service).setServiceInstance(k == 3 ? "i2" : "i1")
              .setEndpoint(k == 4 ? "/b" : "/a"))
          .setType(k == 2 ? Type.Error : Type.Normal).setLayer(k == 5 ? "K8S" : "GENERAL")
          .setStartTime(startTime);
      if (k < 5) {
        e.setEndTime(startTime + 30_000); // the fifth has not ended
      }
      events.add(e.build());
    }
    assertThat(report(sextant, events).getCode()).isEqualTo(Status.Code.OK);
    String all = "source: {service: \"" + service + "\"}, time: " + window(0, 10);
    String e = service + "-e";

    assertThat(uuids(query(all + ", paging: {pageSize: 10}"))).containsExactly(e + 5, e + 4, e + 3, e + 2, e + 1);
    assertThat(uuids(query(all + ", order: ASC, paging: {pageSize: 10}")))
        .containsExactly(e + 1, e + 2, e + 3, e + 4, e + 5);
    assertThat(uuids(query(all + ", paging: {pageNum: 2, pageSize: 2}"))).containsExactly(e + 3, e + 2);
    assertThat(uuids(query(all + ", paging: {pageNum: 3, pageSize: 2}"))).containsExactly(e + 1);
    assertThat(uuids(query(all + ", paging: {pageNum: 4, pageSize: 2}"))).isEmpty();
    assertThat(uuids(query(all + ", type: Error, paging: {pageSize: 10}"))).containsExactly(e + 2);
    assertThat(uuids(query(all + ", name: \"Restart\", paging: {pageSize: 10}"))).containsExactly(e + 1);
    assertThat(uuids(query(all + ", layer: \"K8S\", paging: {pageSize: 10}"))).containsExactly(e + 5);
    assertThat(uuids(query("source: {service: \"" + service + "\", serviceInstance: \"i2\"}, time: " + window(0, 10)
        + ", paging: {pageSize: 10}"))).containsExactly(e + 3);
    assertThat(uuids(query("source: {service: \"" + service + "\", endpoint: \"/b\"}, time: " + window(0, 10)
        + ", paging: {pageSize: 10}"))).containsExactly(e + 4);
    assertThat(uuids(query("source: {service: \"nobody-" + run + "\"}, time: " + window(0, 10)
        + ", paging: {pageSize: 10}"))).isEmpty();
    // SkyWalking's window: startTime after the start minute's first millisecond, endTime before the
    // end minute's last; an event not ended yet (end time 0) passes the second test.
    assertThat(uuids(query("source: {service: \"" + service + "\"}, time: " + window(2, 3)
        + ", paging: {pageSize: 10}"))).containsExactly(e + 5, e + 3, e + 2);
  }

  /** A MINUTE duration from {@code base} + {@code from} minutes to {@code base} + {@code to} minutes. */
  public String window(int from, int to) {
    return "{start: \"" + MINUTE.format(Instant.ofEpochMilli(base + from * 60_000L)) + "\", end: \""
        + MINUTE.format(Instant.ofEpochMilli(base + to * 60_000L)) + "\", step: MINUTE}";
  }

  @Test
  public void aBadEventIsCountedByReasonAndTheGoodOnesAreStored() throws Exception {
    String good = "good-" + run;
    double before = rejected("missing_layer");

    Status status = report(event(good + "-1", "billing", "Deploy").setStartTime(base + 5_000).build(),
        event("no-layer-" + run, "billing", "Deploy").setLayer("").build(),
        event(good + "-2", "billing", "Deploy").setStartTime(base + 6_000).build());

    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).isEqualTo("rejected 1 of 3 events; first: missing_layer: "
        + "Layer field is required since v9.0.0, please upgrade your event report tools");
    assertThat(rejected("missing_layer") - before).isEqualTo(1);
    assertThat(uuids(byUuid(sextant, good + "-1"))).containsExactly(good + "-1");
    assertThat(uuids(byUuid(sextant, good + "-2"))).containsExactly(good + "-2");
    assertThat(byUuid(sextant, "no-layer-" + run)).isEmpty();
  }

  @Test
  public void everyKindOfBadEventAnswersItsReason() throws Exception {
    String tooLong = "x".repeat(600);
    Map<String, Event> cases = Map.of(
        "missing_uuid", event("", "svc", "Deploy").build(),
        "missing_name", event("unnamed-" + run, "svc", "").build(),
        "missing_service", event("sourceless-" + run, "", "Deploy").build(),
        "bad_type", event("typed-" + run, "svc", "Deploy").setTypeValue(7).build(),
        "string_too_long", event("long-" + run, "svc", tooLong).build(),
        "bad_time", event("negative-" + run, "svc", "Deploy").setStartTime(-5).build(),
        "too_many_parameters", tooManyParameters(event("params-" + run, "svc", "Deploy")));
    for (Map.Entry<String, Event> c : cases.entrySet()) {
      double before = rejected(c.getKey());

      Status status = report(c.getValue());

      assertThat(status.getCode()).as(c.getKey()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(status.getDescription()).as(c.getKey()).startsWith("rejected 1 of 1 events; first: " + c.getKey());
      assertThat(rejected(c.getKey()) - before).as(c.getKey()).isEqualTo(1);
    }
    assertThat(byUuid(sextant, "unnamed-" + run)).isEmpty();
    assertThat(byUuid(sextant, "sourceless-" + run)).isEmpty();
  }

  private static Event tooManyParameters(Event.Builder b) {
    for (int i = 0; i <= 64; i++) {
      b.putParameters("k" + i, "v");
    }
    return b.build();
  }

  @Test
  public void aLayerSkyWalkingDoesNotKnowIsKeptAsUndefined() throws Exception {
    String uuid = "odd-layer-" + run;
    assertThat(report(event(uuid, "svc", "Deploy").setLayer("NO_SUCH_LAYER").build()).getCode())
        .isEqualTo(Status.Code.OK);

    assertThat(byUuid(sextant, uuid).get(0).get("layer").asText()).isEqualTo("UNDEFINED");
  }

  @Test
  public void queryEventsNeedsATimeWhenNoUuidIsGiven() throws Exception {
    JsonNode r = sextant.graphql("{ queryEvents(condition: {name: \"Deploy\", paging: {pageSize: 10}}) { "
        + FIELDS + " } }");
    assertThat(r.get("errors").get(0).get("message").asText()).isEqualTo("time field is required when uuid is absent.");

    JsonNode bad = sextant.graphql("{ queryEvents(condition: {time: {start: \"yesterday\", end: \"today\", "
        + "step: MINUTE}, paging: {pageSize: 10}}) { " + FIELDS + " } }");
    assertThat(bad.get("errors").get(0).get("message").asText())
        .isEqualTo("time 'yesterday' does not match the MINUTE format yyyy-MM-dd HHmm");
  }
}
