package io.sextant.api.metric;

import io.sextant.api.model.Scope;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * SkyWalking 10.1's MAL rules for SkyWalking Rover's meters, as data: {@code
 * meter-analyzer-config/network-profiling.yaml} ({@code rover_net_p_*} → {@code process_relation_*}
 * on process relations) and {@code continuous-profiling.yaml} ({@code rover_con_p_*} → {@code
 * continuous_profiling_*} on processes). The eBPF receiver evaluates these rows and the core declares
 * one metric per row from them, so a meter and its metric cannot drift apart.
 */
public final class RoverMeterRules {
  /** The meter prefix of network profiling ({@code ROVER_PROFILING_TASK_NETWORK_TOPOLOGY_METER_PREFIX}). */
  public static final String NETWORK_PREFIX = "rover_net_p_";
  /** The meter prefix of continuous profiling's monitors. */
  public static final String CONTINUOUS_PREFIX = "rover_con_p_";
  /** SkyWalking's {@code histogram_percentile([50,70,90,99])} ranks, also the metrics' {@code p} labels. */
  public static final List<Integer> PERCENTILE_RANKS = List.of(50, 70, 90, 99);

  /** What the metric does over a bucket (MAL's downsampling). */
  public enum Aggregation {
    /** {@code downsampling(SUM_PER_MIN)}: the total, divided by the bucket's minutes. */
    SUM_PER_MIN,
    /** No downsampling (MAL's default AVG): the integer mean of the batch values. */
    AVG,
    /** {@code histogram().histogram_percentile(ranks).downsampling(SUM)}: bucket counts summed. */
    HISTOGRAM_PERCENTILE
  }

  /** How the values of one batch with the same entity and label combine first (MAL's {@code .sum}/{@code .avg}). */
  public enum Combine {
    SUM,
    AVG
  }

  /**
   * One rule: the Rover meter, the metric it makes, its entity kind, function, the label the metric
   * keeps from the data ({@code code}, {@code uri}, or null), the factor values are multiplied by
   * (MAL's {@code multiply}) and how one batch's values combine.
   */
  public record Rule(String meter, String metric, Scope scope, Aggregation function, String labelKey, long scale,
      Combine combine) {}

  public static final List<Rule> RULES = List.of(
      // network-profiling.yaml, TCP, client side
      net("client_write_counts_counter", "client_write_cpm", Aggregation.SUM_PER_MIN),
      net("client_write_bytes_counter", "client_write_total_bytes", Aggregation.SUM_PER_MIN),
      net("client_write_exe_time_counter", "client_write_avg_exe_time", Aggregation.AVG),
      net("client_read_counts_counter", "client_read_cpm", Aggregation.SUM_PER_MIN),
      net("client_read_bytes_counter", "client_read_total_bytes", Aggregation.SUM_PER_MIN),
      net("client_read_exe_time_counter", "client_read_avg_exe_time", Aggregation.AVG),
      net("client_write_rtt_exe_time_counter", "client_write_avg_rtt_time", Aggregation.AVG),
      net("client_connect_counts_counter", "client_connect_cpm", Aggregation.SUM_PER_MIN),
      net("client_connect_exe_time_counter", "client_connect_exe_time", Aggregation.AVG),
      net("client_close_counts_counter", "client_close_cpm", Aggregation.SUM_PER_MIN),
      net("client_close_exe_time_counter", "client_close_avg_exe_time", Aggregation.AVG),
      net("client_retransmit_counts_counter", "client_retransmit_cpm", Aggregation.SUM_PER_MIN),
      net("client_drop_counts_counter", "client_drop_cpm", Aggregation.SUM_PER_MIN),
      net("client_write_rtt_histogram", "client_write_rtt_time_percentile", Aggregation.HISTOGRAM_PERCENTILE),
      net("client_write_exe_time_histogram", "client_write_exe_time_percentile", Aggregation.HISTOGRAM_PERCENTILE),
      net("client_read_exe_time_histogram", "client_read_exe_time_percentile", Aggregation.HISTOGRAM_PERCENTILE),
      // TCP, server side (note server_connect_avg_exe_time against client_connect_exe_time)
      net("server_write_counts_counter", "server_write_cpm", Aggregation.SUM_PER_MIN),
      net("server_write_bytes_counter", "server_write_total_bytes", Aggregation.SUM_PER_MIN),
      net("server_write_exe_time_counter", "server_write_avg_exe_time", Aggregation.AVG),
      net("server_read_counts_counter", "server_read_cpm", Aggregation.SUM_PER_MIN),
      net("server_read_bytes_counter", "server_read_total_bytes", Aggregation.SUM_PER_MIN),
      net("server_read_exe_time_counter", "server_read_avg_exe_time", Aggregation.AVG),
      net("server_write_rtt_exe_time_counter", "server_write_avg_rtt_time", Aggregation.AVG),
      net("server_connect_counts_counter", "server_connect_cpm", Aggregation.SUM_PER_MIN),
      net("server_connect_exe_time_counter", "server_connect_avg_exe_time", Aggregation.AVG),
      net("server_close_counts_counter", "server_close_cpm", Aggregation.SUM_PER_MIN),
      net("server_close_exe_time_counter", "server_close_avg_exe_time", Aggregation.AVG),
      net("server_retransmit_counts_counter", "server_retransmit_cpm", Aggregation.SUM_PER_MIN),
      net("server_drop_counts_counter", "server_drop_cpm", Aggregation.SUM_PER_MIN),
      net("server_write_rtt_histogram", "server_write_rtt_time_percentile", Aggregation.HISTOGRAM_PERCENTILE),
      net("server_write_exe_time_histogram", "server_write_exe_time_percentile", Aggregation.HISTOGRAM_PERCENTILE),
      net("server_read_exe_time_histogram", "server_read_exe_time_percentile", Aggregation.HISTOGRAM_PERCENTILE),
      // HTTP/1.x
      net("http1_request_counter", "http1_request_cpm", Aggregation.SUM_PER_MIN),
      new Rule(NETWORK_PREFIX + "http1_response_status_counter", "process_relation_http1_response_status_cpm",
          Scope.PROCESS_RELATION, Aggregation.SUM_PER_MIN, "code", 1, Combine.SUM),
      net("http1_request_package_size_avg", "http1_request_package_size", Aggregation.AVG),
      net("http1_response_package_size_avg", "http1_response_package_size", Aggregation.AVG),
      net("http1_request_package_size_histogram", "http1_request_package_size_percentile",
          Aggregation.HISTOGRAM_PERCENTILE),
      net("http1_response_package_size_histogram", "http1_response_package_size_percentile",
          Aggregation.HISTOGRAM_PERCENTILE),
      net("http1_client_duration_avg", "http1_client_duration", Aggregation.AVG),
      net("http1_server_duration_avg", "http1_server_duration", Aggregation.AVG),
      net("http1_client_duration_histogram", "http1_client_duration_percentile", Aggregation.HISTOGRAM_PERCENTILE),
      net("http1_server_duration_histogram", "http1_server_duration_percentile", Aggregation.HISTOGRAM_PERCENTILE),
      // continuous-profiling.yaml
      con("process_cpu", null, 10_000),
      con("process_thread_count", null, 1),
      con("system_load", null, 100),
      con("http_error_rate", "uri", 100),
      con("http_avg_response_time", "uri", 1));

  private static final Map<String, Rule> BY_METER =
      RULES.stream().collect(Collectors.toUnmodifiableMap(Rule::meter, r -> r));

  private RoverMeterRules() {}

  /** The rule for a meter name, or null when no rule maps it. */
  public static Rule find(String meter) {
    return BY_METER.get(meter);
  }

  private static Rule net(String meter, String metric, Aggregation function) {
    return new Rule(NETWORK_PREFIX + meter, "process_relation_" + metric, Scope.PROCESS_RELATION, function, null, 1,
        Combine.SUM);
  }

  private static Rule con(String name, String labelKey, long scale) {
    return new Rule(CONTINUOUS_PREFIX + name, "continuous_profiling_" + name, Scope.PROCESS, Aggregation.AVG, labelKey,
        scale, Combine.AVG);
  }
}
