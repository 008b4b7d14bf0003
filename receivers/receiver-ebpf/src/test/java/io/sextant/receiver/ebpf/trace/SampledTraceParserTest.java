package io.sextant.receiver.ebpf.trace;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.ebpf.ProcessIds;
import io.sextant.api.ebpf.SampledTraceReason;
import io.sextant.api.model.DetectPoint;
import org.apache.skywalking.apm.network.common.v3.KeyStringValuePair;
import org.apache.skywalking.apm.network.logging.v3.JSONLog;
import org.apache.skywalking.apm.network.logging.v3.LogData;
import org.apache.skywalking.apm.network.logging.v3.LogDataBody;
import org.apache.skywalking.apm.network.logging.v3.LogTags;
import org.apache.skywalking.apm.network.logging.v3.TraceContext;
import org.junit.jupiter.api.Test;

/** Rover's sampled-trace logs read as SkyWalking 10.1's LAL rule reads them. */
class SampledTraceParserTest {
  private final SampledTraceParser parser = new SampledTraceParser(1024);

  private static LogData log(long timestamp, String body) {
    return LogData.newBuilder().setService("shop").setServiceInstance("shop-1").setLayer("MESH_DP")
        .setTimestamp(timestamp)
        .setTags(LogTags.newBuilder().addData(KeyStringValuePair.newBuilder().setKey("LOG_KIND")
            .setValue("NET_PROFILING_SAMPLED_TRACE")))
        .setTraceContext(TraceContext.newBuilder().setTraceId("t1").setTraceSegmentId("s1").setSpanId(3))
        .setBody(LogDataBody.newBuilder().setType("json").setJson(JSONLog.newBuilder().setJson(body)))
        .build();
  }

  private SampledTrace sample(long timestamp, String body) {
    SampledTraceParser.Outcome o = parser.parse(log(timestamp, body), 42_000);
    assertThat(o).isInstanceOf(SampledTraceParser.Outcome.Sample.class);
    return ((SampledTraceParser.Outcome.Sample) o).trace();
  }

  @Test
  void aServerSideSampleFromAPeerOnTheSameHostHasTheLocalVirtualProcessAsClient() {
    SampledTrace t = sample(0, """
        {"uri":"/pay","reason":"STATUS_5XX","latency":12,"client_process":{"process_id":"","local":true},
         "server_process":{"process_id":"p-backend"},"detect_point":"server","component":"http","ssl":true,
         "status":503}""");

    assertThat(t.reason()).isEqualTo(SampledTraceReason.STATUS_5XX);
    assertThat(t.sourceProcessId()).isEqualTo(ProcessIds.processId("shop", "shop-1", "UNKNOWN_LOCAL"));
    assertThat(t.destProcessId()).isEqualTo("p-backend");
    assertThat(t.detectPoint()).isEqualTo(DetectPoint.SERVER);
    assertThat(t.componentId()).isEqualTo(129);
    assertThat(t.timestampMillis()).isEqualTo(42_000);
    assertThat(t.traceSegmentId()).isEqualTo("s1");
    assertThat(t.toRecord().kind()).isEqualTo("sampled_status_5xx_trace_record");
    assertThat(t.toRecord().entityId()).isEqualTo(ProcessIds.processId("shop", "shop-1", "UNKNOWN_LOCAL")
        + "-p-backend");
    assertThat(t.toRecord().tags()).containsExactly("name=/pay", "value=12", "refId=t1");
  }

  @Test
  void componentsAreSkyWalkingsIds() {
    assertThat(SampledTraceParser.componentId("http", false)).isEqualTo(49);
    assertThat(SampledTraceParser.componentId("http", true)).isEqualTo(129);
    assertThat(SampledTraceParser.componentId("mysql", true)).isEqualTo(130);
    assertThat(SampledTraceParser.componentId("", false)).isEqualTo(110);
  }

  @Test
  void aLogWithoutTheTagIsNotASampledTrace() {
    LogData other = log(1, "{}").toBuilder().setTags(LogTags.newBuilder().addData(
        KeyStringValuePair.newBuilder().setKey("LOG_KIND").setValue("SOMETHING_ELSE"))).build();
    assertThat(parser.parse(other, 1)).isInstanceOf(SampledTraceParser.Outcome.NotSampledTrace.class);
    assertThat(parser.parse(LogData.getDefaultInstance(), 1))
        .isInstanceOf(SampledTraceParser.Outcome.NotSampledTrace.class);
  }
}
