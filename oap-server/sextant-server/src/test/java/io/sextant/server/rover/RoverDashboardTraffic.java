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
 * SkyWalking Rover on two pods, for the eBPF dashboards of each layer Rover reports in: bookinfo's
 * {@code reviews-v1-0} in the mesh (the app {@code java} in layer MESH, its sidecar {@code envoy} in
 * MESH_DP) and {@code ratings-db-0} outside it (a database and its exporter, both in K8S_SERVICE). For
 * each pod it registers both processes, reports every network-profiling meter of the first process's
 * calls to the second, every continuous-profiling meter of the first, and slow / 4xx / 5xx sampled
 * requests of that relation, all over real gRPC as Rover 0.7 sends them; and the access log of a
 * client of the K8S_SERVICE pod ({@link RoverAccessLogTraffic}). Every meter of
 * {@link RoverMeterRules} is sent once so each process and process-relation metric has a value; the
 * values the contract checks are the constants below.
 */
public final class RoverDashboardTraffic {
  /** One pod Rover watches: a process that calls a second one, each in its layer. */
  public record Pod(String service, String pod, String app, String appLayer, String peer, String peerLayer,
      String ip) {
    public String appId() {
      return ProcessIds.processId(service, pod, app);
    }

    public String peerId() {
      return ProcessIds.processId(service, pod, peer);
    }

    /** The process label the contract uses. */
    public String process() {
      return service + "/" + pod + "/" + app;
    }

    /** The process-relation label the contract uses: app → peer of the pod. */
    public String relation() {
      return process() + "->" + service + "/" + pod + "/" + peer;
    }
  }

  public static final Pod MESH_POD = new Pod("reviews", "reviews-v1-0", "java", "MESH", "envoy", "MESH_DP",
      "10.0.0.21");
  public static final Pod K8S_POD = new Pod("ratings-db", "ratings-db-0", "mysqld", "K8S_SERVICE", "exporter",
      "K8S_SERVICE", "10.0.0.31");
  public static final String SERVICE = MESH_POD.service();
  public static final String POD = MESH_POD.pod();
  public static final String APP_ID = MESH_POD.appId();
  public static final String RELATION = MESH_POD.relation();
  public static final String PROCESS = MESH_POD.process();

  private RoverDashboardTraffic() {}

  /** Registers both pods' processes, then sends their meters and samples of the minute of {@code time}. */
  public static void send(TestServer sextant, long time) throws Exception {
    send(sextant.grpcPort, time);
  }

  /** As above, to any collector's gRPC port (a packaged one, by hand). */
  public static void send(int grpcPort, long time) throws Exception {
    send(grpcPort, time, MESH_POD, "java -jar reviews.jar", "/usr/local/bin/envoy -c envoy-rev.json");
    send(grpcPort, time, K8S_POD, "mysqld --datadir=/var/lib/mysql", "/bin/mysqld_exporter");
    RoverAccessLogTraffic.send(grpcPort, time);
  }

  private static void send(int grpcPort, long time, Pod pod, String appCommand, String peerCommand)
      throws Exception {
    RoverClient rover = new RoverClient(grpcPort, "rover-dashboards");
    List<RoverClient.Proc> processes = List.of(
        RoverClient.pod(RoverClient.entity(pod.appLayer(), pod.service(), pod.pod(), pod.app()), 41, pod.service(),
            pod.ip(), appCommand, true),
        RoverClient.pod(RoverClient.entity(pod.peerLayer(), pod.service(), pod.pod(), pod.peer()), 7, pod.peer(),
            pod.ip(), peerCommand, true));
    // As Rover starts: the report on discovery, then the heartbeat that puts the service and instance
    // in each process's layer.
    rover.report(processes);
    rover.keepAlive(processes);
    // Rover on the pod: one flush period's collection, service, instance and time on the first meter.
    List<MeterData.Builder> meters = new ArrayList<>();
    for (Rule rule : RoverMeterRules.RULES) {
      meters.add(rule.meter().startsWith(RoverMeterRules.NETWORK_PREFIX) ? network(pod, rule) : continuous(pod, rule));
    }
    // The answers by status code: a second code beside the one the loop sent.
    meters.add(single("rover_net_p_http1_response_status_counter", 5, with(relation(pod, "client"), "code", "404")));
    MeterDataCollection.Builder collection = MeterDataCollection.newBuilder();
    for (int i = 0; i < meters.size(); i++) {
      if (i == 0) {
        meters.get(i).setService(pod.service()).setServiceInstance(pod.pod()).setTimestamp(time);
      }
      collection.addMeterData(meters.get(i));
    }
    MeterReportServiceGrpc.MeterReportServiceStub stub = GrpcClients.builder("http://127.0.0.1:" + grpcPort)
        .build(MeterReportServiceGrpc.MeterReportServiceStub.class);
    check(TestServer.clientStream(stub::collectBatch, List.of(collection.build())));

    LogReportServiceGrpc.LogReportServiceStub logs = GrpcClients.builder("http://127.0.0.1:" + grpcPort)
        .build(LogReportServiceGrpc.LogReportServiceStub.class);
    check(TestServer.clientStream(logs::collect, List.of(
        sample(pod, "slow", "/reviews/0", 300, "slow-1", time + 1_000),
        sample(pod, "slow", "/reviews/1", 1200, "slow-2", time + 2_000),
        sample(pod, "status_4xx", "/reviews/404", 20, "client-error-1", time + 3_000),
        sample(pod, "status_5xx", "/reviews/500", 80, "server-error-1", time + 4_000))));
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
  private static MeterData.Builder network(Pod pod, Rule rule) {
    String name = rule.meter().substring(RoverMeterRules.NETWORK_PREFIX.length());
    List<Label> labels = relation(pod, name.startsWith("server_") ? "server" : "client");
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

  private static MeterData.Builder continuous(Pod pod, Rule rule) {
    List<Label> labels = process(pod.app(), pod.appLayer());
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

  private static List<Label> relation(Pod pod, String side) {
    return rel(side, pod.appId(), pod.peerId(), "http", "false");
  }

  /** A sample as Rover's HTTP/1 analyzer flushes it, seen on the app's (client) side. */
  private static LogData sample(Pod pod, String reason, String uri, long latency, String traceId, long time) {
    return RoverSampledTraces.rover(pod.service(), pod.pod(), traceId, time, """
        {"uri":"%s","reason":"%s","latency":%d,"trace_provider":"zipkin",
         "client_process":{"process_id":"%s","local":false,"address":""},
         "server_process":{"process_id":"%s","local":false,"address":""},
         "detect_point":"client","component":"http","ssl":false,"status":200}"""
        .formatted(uri, reason, latency, pod.appId(), pod.peerId()));
  }
}
