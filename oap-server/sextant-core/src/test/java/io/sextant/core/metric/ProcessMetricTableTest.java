package io.sextant.core.metric;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.metric.RoverMeterRules;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Layer;
import io.sextant.api.model.ProcessSampleRecord;
import io.sextant.api.model.Scope;
import io.sextant.api.time.Step;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ProcessMetricTableTest {
  /** The metric names SkyWalking 10.1 declares in network-profiling.yaml and continuous-profiling.yaml. */
  private static final List<String> SKYWALKING_NAMES = List.of(
      "process_relation_client_write_cpm", "process_relation_client_write_total_bytes",
      "process_relation_client_write_avg_exe_time", "process_relation_client_read_cpm",
      "process_relation_client_read_total_bytes", "process_relation_client_read_avg_exe_time",
      "process_relation_client_write_avg_rtt_time", "process_relation_client_connect_cpm",
      "process_relation_client_connect_exe_time", "process_relation_client_close_cpm",
      "process_relation_client_close_avg_exe_time", "process_relation_client_retransmit_cpm",
      "process_relation_client_drop_cpm", "process_relation_client_write_rtt_time_percentile",
      "process_relation_client_write_exe_time_percentile", "process_relation_client_read_exe_time_percentile",
      "process_relation_server_write_cpm", "process_relation_server_write_total_bytes",
      "process_relation_server_write_avg_exe_time", "process_relation_server_read_cpm",
      "process_relation_server_read_total_bytes", "process_relation_server_read_avg_exe_time",
      "process_relation_server_write_avg_rtt_time", "process_relation_server_connect_cpm",
      "process_relation_server_connect_avg_exe_time", "process_relation_server_close_cpm",
      "process_relation_server_close_avg_exe_time", "process_relation_server_retransmit_cpm",
      "process_relation_server_drop_cpm", "process_relation_server_write_rtt_time_percentile",
      "process_relation_server_write_exe_time_percentile", "process_relation_server_read_exe_time_percentile",
      "process_relation_http1_request_cpm", "process_relation_http1_response_status_cpm",
      "process_relation_http1_request_package_size", "process_relation_http1_response_package_size",
      "process_relation_http1_request_package_size_percentile",
      "process_relation_http1_response_package_size_percentile", "process_relation_http1_client_duration",
      "process_relation_http1_server_duration", "process_relation_http1_client_duration_percentile",
      "process_relation_http1_server_duration_percentile",
      "continuous_profiling_process_cpu", "continuous_profiling_process_thread_count",
      "continuous_profiling_system_load", "continuous_profiling_http_error_rate",
      "continuous_profiling_http_avg_response_time");

  private final MetricCatalog catalog = MetricFamilies.catalog(500);

  @Test
  void theRulesAreSkyWalkingsMetricsAndEachHasADefinition() {
    Set<String> ruled = RoverMeterRules.RULES.stream().map(RoverMeterRules.Rule::metric).collect(Collectors.toSet());
    assertThat(ruled).containsExactlyInAnyOrderElementsOf(SKYWALKING_NAMES);
    for (RoverMeterRules.Rule rule : RoverMeterRules.RULES) {
      assertThat(catalog.find(rule.metric())).as(rule.metric()).hasValueSatisfying(d -> {
        assertThat(d.source()).isEqualTo(Source.PROCESS_SAMPLE);
        assertThat(d.scope()).isEqualTo(rule.metric().startsWith("process_relation_") ? Scope.PROCESS_RELATION
            : Scope.PROCESS);
      });
      String prefix = rule.scope() == Scope.PROCESS ? RoverMeterRules.CONTINUOUS_PREFIX
          : RoverMeterRules.NETWORK_PREFIX;
      assertThat(rule.meter()).startsWith(prefix);
    }
    assertThat(catalog.all().stream().filter(d -> d.source() == Source.PROCESS_SAMPLE).count())
        .isEqualTo(SKYWALKING_NAMES.size());
    assertThat(catalog.find("process_relation_http1_response_status_cpm").orElseThrow().function().labelKey())
        .isEqualTo("code");
    assertThat(catalog.find("continuous_profiling_http_error_rate").orElseThrow().function().labelKey())
        .isEqualTo("uri");
    assertThat(catalog.find("process_relation_client_write_rtt_time_percentile").orElseThrow().function()
        .labelValues()).containsExactly("50", "70", "90", "99");
    assertThat(RoverMeterRules.find("rover_con_p_process_cpu").scale()).isEqualTo(10_000);
    assertThat(RoverMeterRules.find("rover_con_p_system_load").scale()).isEqualTo(100);
    assertThat(RoverMeterRules.find("rover_con_p_http_error_rate").scale()).isEqualTo(100);
  }

  @Test
  void bucketPercentilesAreSkyWalkingsAndSurviveEncodingAndMerging() {
    AggregateFunction f = catalog.find("process_relation_client_write_rtt_time_percentile").orElseThrow().function();
    MetricState a = new MetricState();
    // buckets (lower bounds) 0:10, 5:20, 10:60, 50:10 → total 100; roofs 50, 70, 90, 99
    f.add(a, bucket(0, 10));
    f.add(a, bucket(5, 20));
    MetricState b = new MetricState();
    f.add(b, bucket(10, 60));
    f.add(b, bucket(50, 10));
    MetricState merged = new MetricState();
    f.merge(merged, EncodedState.of(a).decode());
    f.merge(merged, EncodedState.of(b).decode());
    assertThat(List.of(f.value(merged, Step.MINUTE, 0), f.value(merged, Step.MINUTE, 1),
        f.value(merged, Step.MINUTE, 2), f.value(merged, Step.MINUTE, 3))).containsExactly(10L, 10L, 10L, 50L);
    assertThat(f.value(new MetricState(), Step.MINUTE, 0)).isNull();
  }

  @Test
  void sumPerMinuteDividesByTheBucketsMinutes() {
    AggregateFunction f = catalog.find("process_relation_client_write_cpm").orElseThrow().function();
    MetricState s = new MetricState();
    f.add(s, bucket(0, 120));
    f.add(s, bucket(0, 60));
    assertThat(f.value(s, Step.MINUTE, 0)).isEqualTo(180L);
    assertThat(f.value(s, Step.HOUR, 0)).isEqualTo(3L);
  }

  private static ProcessSampleRecord bucket(long bucket, long count) {
    return new ProcessSampleRecord(0, Scope.PROCESS_RELATION, "svc", "inst", Layer.UNDEFINED, DetectPoint.CLIENT,
        "a", "b", "tcp", "m", "", bucket, count);
  }
}
