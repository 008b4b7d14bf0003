package io.sextant.server.rover;

import static io.sextant.server.rover.RoverNetworkEndToEnd.histogram;
import static io.sextant.server.rover.RoverNetworkEndToEnd.process;
import static io.sextant.server.rover.RoverNetworkEndToEnd.rel;
import static io.sextant.server.rover.RoverNetworkEndToEnd.single;
import static io.sextant.server.rover.RoverNetworkEndToEnd.with;

import com.linecorp.armeria.client.grpc.GrpcClients;
import io.grpc.Status;
import io.sextant.api.ebpf.ProcessIds;
import io.sextant.api.metric.RoverMeterRules;
import io.sextant.api.metric.RoverMeterRules.Aggregation;
import io.sextant.api.metric.RoverMeterRules.Rule;
import io.sextant.server.testing.TestServer;
import java.util.ArrayList;
import java.util.List;
import org.apache.skywalking.apm.network.language.agent.v3.Label;
import org.apache.skywalking.apm.network.language.agent.v3.MeterData;
import org.apache.skywalking.apm.network.language.agent.v3.MeterDataCollection;
import org.apache.skywalking.apm.network.language.agent.v3.MeterReportServiceGrpc;
import org.apache.skywalking.apm.network.logging.v3.LogData;
import org.apache.skywalking.apm.network.logging.v3.LogReportServiceGrpc;

/**
 * SkyWalking Rover on bookinfo's {@code reviews-v1-0} pod, for the eBPF dashboards: it registers the
 * app ({@code java}, layer MESH) and its sidecar ({@code envoy}, layer MESH_DP), reports every
 * network-profiling meter of the app's calls to the sidecar, every continuous-profiling meter of the
 * app, and slow / 4xx / 5xx sampled requests of that relation, all over real gRPC as Rover 0.7 sends
 * them. Every meter of {@link RoverMeterRules} is sent once so each process and process-relation
 * metric has a value; the values the contract checks are the constants below.
 */
public final class RoverDashboardTraffic {
  public static final String SERVICE = "reviews";
  public static final String POD = "reviews-v1-0";
  public static final String APP = "java";
  public static final String SIDECAR = "envoy";
  public static final String APP_ID = ProcessIds.processId(SERVICE, POD, APP);
  public static final String SIDECAR_ID = ProcessIds.processId(SERVICE, POD, SIDECAR);
  /** The process-relation label the contract uses: app → sidecar of the pod. */
  public static final String RELATION = SERVICE + "/" + POD + "/" + APP + "->" + SERVICE + "/" + POD + "/" + SIDECAR;
  /** The process label the contract uses. */
  public static final String PROCESS = SERVICE + "/" + POD + "/" + APP;

  private RoverDashboardTraffic() {}

  /** Registers the processes, then sends the meters and the samples of the minute of {@code time}. */
  public static void send(TestServer sextant, long time) throws Exception {
    RoverClient rover = new RoverClient(sextant.grpcPort, "rover-dashboards");
    List<RoverClient.Proc> processes = List.of(
        RoverClient.pod(RoverClient.entity("MESH", SERVICE, POD, APP), 41, "reviews", "10.0.0.21",
            "java -jar reviews.jar", true),
        RoverClient.pod(RoverClient.entity("MESH_DP", SERVICE, POD, SIDECAR), 7, "istio-proxy", "10.0.0.21",
            "/usr/local/bin/envoy -c envoy-rev.json", true));
    // As Rover starts: the report on discovery, then the heartbeat that puts the service and instance
    // in each process's layer.
    rover.report(processes);
    rover.keepAlive(processes);
    // Rover on the pod: one flush period's collection, service, instance and time on the first meter.
    List<MeterData.Builder> meters = new ArrayList<>();
    for (Rule rule : RoverMeterRules.RULES) {
      meters.add(rule.meter().startsWith(RoverMeterRules.NETWORK_PREFIX) ? network(rule) : continuous(rule));
    }
    // The answers by status code: a second code beside the one the loop sent.
    meters.add(single("rover_net_p_http1_response_status_counter", 5, with(relation("client"), "code", "404")));
    MeterDataCollection.Builder collection = MeterDataCollection.newBuilder();
    for (int i = 0; i < meters.size(); i++) {
      if (i == 0) {
        meters.get(i).setService(SERVICE).setServiceInstance(POD).setTimestamp(time);
      }
      collection.addMeterData(meters.get(i));
    }
    MeterReportServiceGrpc.MeterReportServiceStub stub = GrpcClients.builder("http://127.0.0.1:" + sextant.grpcPort)
        .build(MeterReportServiceGrpc.MeterReportServiceStub.class);
    check(TestServer.clientStream(stub::collectBatch, List.of(collection.build())));

    LogReportServiceGrpc.LogReportServiceStub logs = GrpcClients.builder("http://127.0.0.1:" + sextant.grpcPort)
        .build(LogReportServiceGrpc.LogReportServiceStub.class);
    check(TestServer.clientStream(logs::collect, List.of(
        sample("slow", "/reviews/0", 300, "slow-1", time + 1_000),
        sample("slow", "/reviews/1", 1200, "slow-2", time + 2_000),
        sample("status_4xx", "/reviews/404", 20, "client-error-1", time + 3_000),
        sample("status_5xx", "/reviews/500", 80, "server-error-1", time + 4_000))));
  }

  private static void check(Status status) {
    if (!status.isOk()) {
      throw new AssertionError("Rover's report refused: " + status);
    }
  }

  /**
   * One network meter on the app → sidecar connection, from the side its name says: histograms put
   * all their counts in one bucket (so every percentile is that bucket), counters and averages send
   * the values below.
   */
  private static MeterData.Builder network(Rule rule) {
    String name = rule.meter().substring(RoverMeterRules.NETWORK_PREFIX.length());
    List<Label> labels = relation(name.startsWith("server_") ? "server" : "client");
    if (rule.function() == Aggregation.HISTOGRAM_PERCENTILE) {
      return histogram(rule.meter(), labels, 0, 0, 2048, 10, 4096, 0);
    }
    if (rule.labelKey() != null) {
      labels = with(labels, rule.labelKey(), "200");
    }
    return single(rule.meter(), networkValue(name), labels);
  }

  /** The values the contract checks; other times send 1.5 ms, other meters 3. */
  public static double networkValue(String meterName) {
    return switch (meterName) {
      case "client_write_counts_counter" -> 30;
      case "client_write_bytes_counter" -> 4096;
      case "client_write_exe_time_counter" -> 2_500_000; // ns
      case "http1_request_counter" -> 30;
      case "http1_response_status_counter" -> 25;
      case "http1_client_duration_avg" -> 12;
      default -> meterName.contains("exe_time_counter") ? 1_500_000 : 3;
    };
  }

  private static MeterData.Builder continuous(Rule rule) {
    List<Label> labels = process(APP, "MESH");
    if (rule.labelKey() != null) {
      labels = with(labels, rule.labelKey(), "/reviews/0");
    }
    String name = rule.meter().substring(RoverMeterRules.CONTINUOUS_PREFIX.length());
    double value = switch (name) {
      case "process_cpu" -> 0.42;
      case "process_thread_count" -> 17;
      case "system_load" -> 1.5;
      case "http_error_rate" -> 12.5;
      case "http_avg_response_time" -> 45;
      default -> throw new AssertionError("a continuous-profiling meter the contract does not know: " + name);
    };
    return single(rule.meter(), value, labels);
  }

  private static List<Label> relation(String side) {
    return rel(side, APP_ID, SIDECAR_ID, "http", "false");
  }

  /** A sample as Rover's HTTP/1 analyzer flushes it, seen on the app's (client) side. */
  private static LogData sample(String reason, String uri, long latency, String traceId, long time) {
    return RoverSampledTraces.rover(SERVICE, POD, traceId, time, """
        {"uri":"%s","reason":"%s","latency":%d,"trace_provider":"zipkin",
         "client_process":{"process_id":"%s","local":false,"address":""},
         "server_process":{"process_id":"%s","local":false,"address":""},
         "detect_point":"client","component":"http","ssl":false,"status":200}"""
        .formatted(uri, reason, latency, APP_ID, SIDECAR_ID));
  }
}
