package io.sextant.server.rover;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.linecorp.armeria.client.grpc.GrpcClients;
import io.grpc.Status;
import io.micrometer.core.instrument.Counter;
import io.sextant.api.ebpf.ProcessIds;
import io.sextant.server.query.EventsEndToEnd;
import io.sextant.server.testing.TestServer;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.skywalking.apm.network.common.v3.KeyStringValuePair;
import org.apache.skywalking.apm.network.logging.v3.JSONLog;
import org.apache.skywalking.apm.network.logging.v3.LogData;
import org.apache.skywalking.apm.network.logging.v3.LogDataBody;
import org.apache.skywalking.apm.network.logging.v3.LogReportServiceGrpc;
import org.apache.skywalking.apm.network.logging.v3.LogTags;
import org.apache.skywalking.apm.network.logging.v3.TextLog;
import org.apache.skywalking.apm.network.logging.v3.TraceContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * SkyWalking Rover's network-profiling samples (slow, 4xx and 5xx HTTP requests) sent as Rover sends
 * them, as logs on real {@code LogReportService/collect} client streams (the published stubs), read
 * back over real HTTP as the UI's process-relation dashboard reads them: MQE
 * {@code top_n(sampled_slow_trace_record,50,DES)} (RECORD_LIST) and {@code readRecords}. Exactly the
 * samples of the relation come back, ordered by latency; logs that are not Rover's are counted and
 * ignored; malformed samples are refused and counted.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class RoverSampledTraces {
  public static final DateTimeFormatter MINUTE =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm").withZone(ZoneOffset.UTC);
  /** Keeps runs apart on a store that outlives a test class. */
  public final String run = UUID.randomUUID().toString().substring(0, 8);
  /** Ten minutes ago, on a minute. */
  public final long base = (System.currentTimeMillis() / 60_000 - 10) * 60_000;
  public final String shop = "shop-" + run;
  public final String orders = "orders-" + run;
  /** The two processes Rover registered (SkyWalking's ids), client side and server side. */
  public final String frontend = ProcessIds.processId(shop, "shop-1", "frontend");
  public final String backend = ProcessIds.processId(orders, "orders-1", "backend");
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

  public Status report(LogData... logs) throws Exception {
    LogReportServiceGrpc.LogReportServiceStub stub = GrpcClients.builder("http://127.0.0.1:" + sextant.grpcPort)
        .build(LogReportServiceGrpc.LogReportServiceStub.class);
    return TestServer.clientStream(stub::collect, List.of(logs));
  }

  /** A sample as Rover's HTTP/1 analyzer flushes it, seen by the client process (frontend → backend). */
  public LogData sample(String reason, String uri, long latency, String traceId, long time) {
    return rover(shop, "shop-1", traceId, time, """
        {"uri":"%s","reason":"%s","latency":%d,"trace_provider":"zipkin",
         "client_process":{"process_id":"%s","local":false,"address":""},
         "server_process":{"process_id":"%s","local":false,"address":""},
         "detect_point":"client","component":"http","ssl":false,"status":200}"""
        .formatted(uri, reason, latency, frontend, backend));
  }

  public static LogData rover(String service, String instance, String traceId, long time, String body) {
    return LogData.newBuilder().setService(service).setServiceInstance(instance).setLayer("K8S_SERVICE")
        .setTimestamp(time)
        .setTags(LogTags.newBuilder().addData(KeyStringValuePair.newBuilder().setKey("LOG_KIND")
            .setValue("NET_PROFILING_SAMPLED_TRACE")))
        .setTraceContext(TraceContext.newBuilder().setTraceId(traceId))
        .setBody(LogDataBody.newBuilder().setType("json").setJson(JSONLog.newBuilder().setJson(body)))
        .build();
  }

  /** The UI's process-relation entity: frontend → backend. */
  public String relation() {
    return "{serviceName: \"" + shop + "\", normal: true, serviceInstanceName: \"shop-1\", processName: "
        + "\"frontend\", destServiceName: \"" + orders + "\", destNormal: true, destServiceInstanceName: "
        + "\"orders-1\", destProcessName: \"backend\"}";
  }

  public String window() {
    return "{start: \"" + MINUTE.format(Instant.ofEpochMilli(base - 60_000)) + "\", end: \""
        + MINUTE.format(Instant.ofEpochMilli(base + 5 * 60_000)) + "\", step: MINUTE}";
  }

  public JsonNode exec(String expression) throws Exception {
    return sextant.data("{ execExpression(expression: \"" + expression + "\", entity: " + relation()
        + ", duration: " + window() + ") { type error results { metric { labels { key value } } "
        + "values { id value traceID } } } }").get("execExpression");
  }

  /** The values of a RECORD_LIST as "uri=latency@trace". */
  public List<String> records(String expression) throws Exception {
    JsonNode r = exec(expression);
    assertThat(r.get("error").isNull()).as(r.toString()).isTrue();
    assertThat(r.get("type").asText()).isEqualTo("RECORD_LIST");
    List<String> out = new ArrayList<>();
    r.get("results").get(0).get("values").forEach(v -> out.add(v.get("id").asText() + "="
        + v.get("value").asText() + "@" + v.get("traceID").asText()));
    return out;
  }

  public JsonNode readRecords(String name, String order) throws Exception {
    return sextant.data("{ readRecords(condition: {name: \"" + name + "\", parentEntity: " + relation()
        + ", topN: 50, order: " + order + "}, duration: " + window() + ") { id name value refId } }")
        .get("readRecords");
  }

  public double rejected(String reason) {
    Counter c = sextant.server.registry().find("sextant_receiver_records_rejected").tag("receiver", "ebpf")
        .tag("reason", reason).counter();
    return c == null ? 0 : c.count();
  }

  @Test
  public void theDashboardListsExactlyTheRelationsSamplesByLatency() throws Exception {
    Status status = report(
        sample("slow", "/cart", 300, "t1-" + run, base + 1_000),
        sample("slow", "/checkout", 1200, "t2-" + run, base + 2_000),
        sample("slow", "/items", 700, "t3-" + run, base + 61_000),
        sample("status_4xx", "/login", 20, "t4-" + run, base + 3_000),
        sample("status_5xx", "/pay", 50, "t5-" + run, base + 4_000),
        sample("status_5xx", "/refund", 80, "t6-" + run, base + 5_000),
        // Another relation of the same client: to a peer Rover could not name (UNKNOWN_REMOTE).
        rover(shop, "shop-1", "t7-" + run, base + 6_000, """
            {"uri":"/elsewhere","reason":"slow","latency":9000,"trace_provider":"zipkin",
             "client_process":{"process_id":"%s"},"server_process":{"process_id":"","local":false,
             "address":"10.0.0.9:8080"},"detect_point":"client","component":"http","ssl":true,"status":200}"""
            .formatted(frontend)));

    assertThat(status.getCode()).as(status.toString()).isEqualTo(Status.Code.OK);
    assertThat(records("top_n(sampled_slow_trace_record,50,DES)"))
        .containsExactly("/checkout=1200@t2-" + run, "/items=700@t3-" + run, "/cart=300@t1-" + run);
    assertThat(records("top_n(sampled_slow_trace_record,2,ASC)"))
        .containsExactly("/cart=300@t1-" + run, "/items=700@t3-" + run);
    assertThat(records("top_n(sampled_status_4xx_trace_record,50,DES)")).containsExactly("/login=20@t4-" + run);
    assertThat(records("top_n(sampled_status_5xx_trace_record,50,DES)"))
        .containsExactly("/refund=80@t6-" + run, "/pay=50@t5-" + run);

    assertThat(readRecords("sampled_slow_trace_record", "DES")).isEqualTo(EventsEndToEnd.json("""
        [{"id":"t2-%1$s","name":"/checkout","value":"1200","refId":"t2-%1$s"},
         {"id":"t3-%1$s","name":"/items","value":"700","refId":"t3-%1$s"},
         {"id":"t1-%1$s","name":"/cart","value":"300","refId":"t1-%1$s"}]""".formatted(run)));
    assertThat(readRecords("sampled_status_5xx_trace_record", "ASC")).isEqualTo(EventsEndToEnd.json("""
        [{"id":"t5-%1$s","name":"/pay","value":"50","refId":"t5-%1$s"},
         {"id":"t6-%1$s","name":"/refund","value":"80","refId":"t6-%1$s"}]""".formatted(run)));

    // The sample to the unnamed peer is its own relation: frontend → the instance's UNKNOWN_REMOTE.
    JsonNode remote = sextant.data("{ execExpression(expression: \"top_n(sampled_slow_trace_record,50,DES)\", "
        + "entity: {serviceName: \"" + shop + "\", serviceInstanceName: \"shop-1\", processName: \"frontend\", "
        + "destServiceName: \"" + shop + "\", destServiceInstanceName: \"shop-1\", destProcessName: "
        + "\"UNKNOWN_REMOTE\"}, duration: " + window() + ") { type values: results { values { id value } } } }")
        .get("execExpression");
    assertThat(remote.get("values").get(0).get("values")).isEqualTo(EventsEndToEnd.json("""
        [{"id":"/elsewhere","value":"9000"}]"""));
  }

  @Test
  public void aSampleOutsideTheWindowIsNotListed() throws Exception {
    assertThat(report(sample("status_4xx", "/old", 10, "old-" + run, base - 3_600_000)).getCode())
        .isEqualTo(Status.Code.OK);

    assertThat(readRecords("sampled_status_4xx_trace_record", "DES").toString()).doesNotContain("/old");
  }

  @Test
  public void logsThatAreNotRoverSamplesAreCountedAndIgnoredAndTheSamplesBesideThemKept() throws Exception {
    double before = rejected("not_sampled_trace");
    LogData appLog = LogData.newBuilder().setService(shop).setServiceInstance("shop-1")
        .setBody(LogDataBody.newBuilder().setText(TextLog.newBuilder().setText("GET /cart 200"))).build();

    Status status = report(appLog, sample("status_4xx", "/mixed", 33, "mixed-" + run, base + 7_000));

    assertThat(status.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(status.getDescription()).isEqualTo("1 of 2 logs ignored: logs other than SkyWalking Rover's "
        + "network-profiling sampled traces (tag LOG_KIND=NET_PROFILING_SAMPLED_TRACE) are outside Sextant's scope "
        + "(a service-mesh backend); 1 sampled traces of this stream were stored");
    assertThat(rejected("not_sampled_trace") - before).isEqualTo(1);
    assertThat(readRecords("sampled_status_4xx_trace_record", "DES").toString()).contains("/mixed");
  }

  @Test
  public void malformedSamplesAreRefusedByReasonAndTheGoodOnesStored() throws Exception {
    Map<String, LogData> bad = Map.of(
        "bad_reason", sample("slowish", "/r", 1, "r-" + run, base),
        "bad_latency", sample("slow", "/l", -5, "l-" + run, base),
        "missing_uri", sample("slow", "", 1, "u-" + run, base),
        "missing_trace_id", sample("slow", "/t", 1, "", base),
        "bad_body", rover(shop, "shop-1", "b-" + run, base, "not json"),
        "bad_detect_point", rover(shop, "shop-1", "d-" + run, base, """
            {"uri":"/d","reason":"slow","latency":1,"client_process":{"process_id":"a"},
             "server_process":{"process_id":"b"},"detect_point":"unknown","component":"http"}"""),
        "missing_process", rover(shop, "shop-1", "p-" + run, base, """
            {"uri":"/p","reason":"slow","latency":1,"detect_point":"client","component":"http"}"""),
        "string_too_long", sample("slow", "/" + "x".repeat(2000), 1, "s-" + run, base),
        "missing_service", rover("", "shop-1", "m-" + run, base, "{}"));
    for (Map.Entry<String, LogData> c : bad.entrySet()) {
      double before = rejected(c.getKey());

      Status status = report(c.getValue(), sample("slow", "/good-" + c.getKey(), 5, "g-" + c.getKey() + run,
          base + 8_000));

      assertThat(status.getCode()).as(c.getKey()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(status.getDescription()).as(c.getKey())
          .startsWith("rejected 1 of 2 sampled traces; first: " + c.getKey() + ": ")
          .endsWith("; 1 sampled traces of this stream were stored");
      assertThat(rejected(c.getKey()) - before).as(c.getKey()).isEqualTo(1);
    }
    String stored = readRecords("sampled_slow_trace_record", "DES").toString();
    for (String reason : bad.keySet()) {
      assertThat(stored).contains("/good-" + reason);
    }
    assertThat(stored).doesNotContain("\"/r\"", "\"/l\"", "\"/t\"", "\"/d\"", "\"/p\"");
  }

  @Test
  public void aRecordNameSextantDoesNotKeepKeepsItsReason() throws Exception {
    JsonNode r = exec("top_n(top_n_database_statement,10,DES)");
    assertThat(r.get("error").asText()).isEqualTo("Metric: [top_n_database_statement] is a sampled record "
        + "(RECORD_LIST) that Sextant does not keep, so it cannot answer it.");
    assertThat(exec("sampled_slow_trace_record").get("error").asText())
        .isEqualTo("Metric: [sampled_slow_trace_record] is topN record, need top_n function for query.");
  }
}
