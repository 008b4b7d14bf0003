package io.sextant.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.Timestamp;
import com.google.protobuf.UInt32Value;
import com.linecorp.armeria.client.ClientFactory;
import com.linecorp.armeria.client.grpc.GrpcClients;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.data.accesslog.v3.AccessLogCommon;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPAccessLogEntry;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPRequestProperties;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPResponseProperties;
import io.envoyproxy.envoy.service.accesslog.v3.AccessLogServiceGrpc;
import io.envoyproxy.envoy.service.accesslog.v3.StreamAccessLogsMessage;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.stub.MetadataUtils;
import io.sextant.testkit.poll.Poll;
import io.sextant.testkit.receiver.ClientStreams;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.skywalking.apm.network.common.v3.DetectPoint;
import org.apache.skywalking.apm.network.common.v3.KeyStringValuePair;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFHostProcessMetadata;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessEntityMetadata;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessProperties;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessReportList;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessServiceGrpc;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFReportProcessDownstream;
import org.apache.skywalking.apm.network.event.v3.Event;
import org.apache.skywalking.apm.network.event.v3.EventServiceGrpc;
import org.apache.skywalking.apm.network.event.v3.Source;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetric;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetrics;
import org.apache.skywalking.apm.network.servicemesh.v3.Protocol;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetricServiceGrpc;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetrics;

/**
 * What a user's tools send and ask, built from the published protocol classes and sent over real
 * sockets to a running distribution: mesh probes, Envoy's access-log service, Rover, event
 * reporters, and GraphQL over HTTP.
 */
final class Clients {
  private static final ObjectMapper JSON = new ObjectMapper();
  // HTTP/1.1 as Prometheus and the UI's proxy speak it: the JDK client's h2c upgrade sometimes
  // misreads a large answer sent right after the 101 (a /metrics scrape failed so once in CI).
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();
  private static final DateTimeFormatter MINUTE =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm").withZone(ZoneOffset.UTC);

  private final int grpcPort;
  private final int httpPort;

  Clients(int grpcPort, int httpPort) {
    this.grpcPort = grpcPort;
    this.httpPort = httpPort;
  }

  private <T> T stub(Class<T> type) {
    return GrpcClients.builder("http://127.0.0.1:" + grpcPort).build(type);
  }

  int grpcPort() {
    return grpcPort;
  }

  int httpPort() {
    return httpPort;
  }

  /** {@code calls} server-side HTTP calls from {@code source} to {@code dest}, one message each. */
  Status.Code mesh(String source, String dest, long time, int calls) throws Exception {
    return ClientStreams.send(stub(ServiceMeshMetricServiceGrpc.ServiceMeshMetricServiceStub.class)::collect,
        meshMessages(source, dest, time, calls)).getCode();
  }

  /** As {@link #mesh}, over TLS, with the token in the 'authentication' metadata as Satellite sends it. */
  Status.Code meshOver(ClientFactory tls, String token, String source, String dest, long time, int calls)
      throws Exception {
    Metadata headers = new Metadata();
    if (token != null) {
      headers.put(Metadata.Key.of("authentication", Metadata.ASCII_STRING_MARSHALLER), token);
    }
    var stub = GrpcClients.builder("https://127.0.0.1:" + grpcPort).factory(tls)
        .intercept(MetadataUtils.newAttachHeadersInterceptor(headers))
        .build(ServiceMeshMetricServiceGrpc.ServiceMeshMetricServiceStub.class);
    return ClientStreams.send(stub::collect, meshMessages(source, dest, time, calls)).getCode();
  }

  private static List<ServiceMeshMetrics> meshMessages(String source, String dest, long time, int calls) {
    List<ServiceMeshMetrics> messages = new ArrayList<>();
    for (int i = 0; i < calls; i++) {
      messages.add(ServiceMeshMetrics.newBuilder().setHttpMetrics(HTTPServiceMeshMetrics.newBuilder()
          .addMetrics(HTTPServiceMeshMetric.newBuilder().setStartTime(time + i).setEndTime(time + i + 12)
              .setSourceServiceName(source).setSourceServiceInstance(source + "-0")
              .setDestServiceName(dest).setDestServiceInstance(dest + "-0").setEndpoint("/api")
              .setLatency(12).setResponseCode(200).setStatus(true).setProtocol(Protocol.HTTP)
              .setDetectPoint(DetectPoint.server))).build());
    }
    return messages;
  }

  /**
   * One stream of {@code messages} messages of {@code perMessage} calls each, every call to a service
   * named {@code prefix-<n>} never seen before (n counts from {@code first}): a burst of new names.
   */
  Status.Code newServices(String prefix, int first, int messages, int perMessage, long time) throws Exception {
    List<ServiceMeshMetrics> out = new ArrayList<>();
    for (int m = 0; m < messages; m++) {
      HTTPServiceMeshMetrics.Builder batch = HTTPServiceMeshMetrics.newBuilder();
      for (int i = 0; i < perMessage; i++) {
        int n = first + m * perMessage + i;
        String dest = prefix + "-" + n;
        String source = prefix + "-client-" + n % 100;
        int latency = 1 + (n * 7919) % 5000; // spread, as real latencies are: sketches grow with them
        batch.addMetrics(HTTPServiceMeshMetric.newBuilder().setStartTime(time).setEndTime(time + latency)
            .setSourceServiceName(source).setSourceServiceInstance(source + "-0")
            .setDestServiceName(dest).setDestServiceInstance(dest + "-0").setEndpoint("/api/" + n % 7)
            .setLatency(latency).setResponseCode(n % 50 == 0 ? 500 : 200).setStatus(n % 50 != 0)
            .setProtocol(Protocol.HTTP).setDetectPoint(DetectPoint.server));
      }
      out.add(ServiceMeshMetrics.newBuilder().setHttpMetrics(batch).build());
    }
    var stub = stub(ServiceMeshMetricServiceGrpc.ServiceMeshMetricServiceStub.class);
    return ClientStreams.send(stub::collect, out).getCode();
  }

  /** The sum of the samples of a metric in {@code /metrics} whose line starts with {@code series}. */
  double metric(String series) throws Exception {
    double sum = 0;
    for (String line : get("/metrics").split("\n")) {
      if (line.startsWith(series)) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  /** One Envoy's access-log stream: its node first, then its HTTP entries. */
  Status.Code accessLogs(String nodeId, List<HTTPAccessLogEntry> entries) throws Exception {
    StreamAccessLogsMessage message = StreamAccessLogsMessage.newBuilder()
        .setIdentifier(StreamAccessLogsMessage.Identifier.newBuilder().setLogName("als")
            .setNode(Node.newBuilder().setId(nodeId)))
        .setHttpLogs(StreamAccessLogsMessage.HTTPAccessLogEntries.newBuilder().addAllLogEntry(entries)).build();
    var stub = stub(AccessLogServiceGrpc.AccessLogServiceStub.class);
    return ClientStreams.send(stub::streamAccessLogs, List.of(message)).getCode();
  }

  /**
   * An HTTP entry as a sidecar without Istio's metadata exchange logs it: the downstream remote is
   * the caller, the downstream local the address called, the upstream remote the pod that answered.
   */
  static HTTPAccessLogEntry accessLog(long start, String cluster, String remote, String local, String upstream) {
    com.google.protobuf.Duration latency = com.google.protobuf.Duration.newBuilder().setNanos(9_000_000).build();
    return HTTPAccessLogEntry.newBuilder()
        .setCommonProperties(AccessLogCommon.newBuilder()
            .setStartTime(Timestamp.newBuilder().setSeconds(start / 1000).setNanos((int) (start % 1000) * 1_000_000))
            .setUpstreamCluster(cluster)
            .setDownstreamRemoteAddress(address(remote, 51234))
            .setDownstreamLocalAddress(address(local, 9080))
            .setUpstreamRemoteAddress(address(upstream, 9080))
            .setTimeToLastUpstreamRxByte(latency).setTimeToLastDownstreamTxByte(latency))
        .setRequest(HTTPRequestProperties.newBuilder().setPath("/reviews"))
        .setResponse(HTTPResponseProperties.newBuilder().setResponseCode(UInt32Value.of(200)))
        .build();
  }

  private static Address address(String ip, int port) {
    return Address.newBuilder().setSocketAddress(SocketAddress.newBuilder().setAddress(ip).setPortValue(port))
        .build();
  }

  /** Rover's {@code reportProcesses} of one host process. */
  EBPFReportProcessDownstream roverProcess(String agent, String layer, String service, String instance,
      String process, int pid) {
    EBPFProcessEntityMetadata entity = EBPFProcessEntityMetadata.newBuilder().setLayer(layer)
        .setServiceName(service).setInstanceName(instance).setProcessName(process).build();
    EBPFProcessReportList report = EBPFProcessReportList.newBuilder().setEbpfAgentID(agent)
        .addProcesses(EBPFProcessProperties.newBuilder().setHostProcess(EBPFHostProcessMetadata.newBuilder()
            .setEntity(entity).setPid(pid)
            .addProperties(KeyStringValuePair.newBuilder().setKey("command_line").setValue(process))))
        .build();
    return stub(EBPFProcessServiceGrpc.EBPFProcessServiceBlockingStub.class).reportProcesses(report);
  }

  /** One event, as {@code swctl event report} or a Kubernetes event exporter sends it. */
  Status.Code event(String uuid, String service, String name, long start, long end) throws Exception {
    Event e = Event.newBuilder().setUuid(uuid).setSource(Source.newBuilder().setService(service))
        .setName(name).setMessage(name + " by the tarball test").setLayer("GENERAL").setStartTime(start)
        .setEndTime(end).build();
    var stub = stub(EventServiceGrpc.EventServiceStub.class);
    return ClientStreams.send(stub::collect, List.of(e)).getCode();
  }

  /** The {@code data} of a GraphQL answer; fails on any error. */
  JsonNode graphql(String query) throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/graphql"))
        .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(Map.of("query", query)))).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode body = JSON.readTree(r.body());
    assertThat(body.has("errors")).as(r.body()).isFalse();
    return body.get("data");
  }

  String get(String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString()).body();
  }

  /** The HTTP status of a GET as a prober sees it (2 s timeout); -1 when nothing answers. */
  int status(String path) {
    try {
      return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
          .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (Exception e) {
      return -1;
    }
  }

  /** A MINUTE-step duration from the minute of {@code from} to the minute of {@code to}. */
  static String minutes(long from, long to) {
    return "{start: \"" + MINUTE.format(Instant.ofEpochMilli(from)) + "\", end: \""
        + MINUTE.format(Instant.ofEpochMilli(to)) + "\", step: MINUTE}";
  }

  /** Names of the services listed under {@code layer}. */
  TreeSet<String> services(String layer) throws Exception {
    TreeSet<String> names = new TreeSet<>();
    graphql("{ listServices(layer: \"" + layer + "\") { name } }").get("listServices")
        .forEach(s -> names.add(s.get("name").asText()));
    return names;
  }

  /**
   * Waits until {@code layer} lists every one of {@code names}: a new service is listed within a
   * closed-collection tick and its write, not at once.
   */
  TreeSet<String> awaitServices(String layer, String... names) throws Exception {
    return Poll.until("services " + List.of(names) + " listed under " + layer, Duration.ofSeconds(20),
        () -> services(layer), listed -> listed.containsAll(List.of(names)));
  }

  /** One value of an MQE expression over the minute of {@code time}; null when there is none. */
  String value(String expression, String entity, long time) throws Exception {
    JsonNode v = values(expression, entity, time, time).get(0).get("value");
    return v.isNull() ? null : v.asText();
  }

  /** The values, one per minute, of an MQE expression's first result from {@code from} to {@code to}. */
  JsonNode values(String expression, String entity, long from, long to) throws Exception {
    JsonNode r = graphql("{ r: execExpression(expression: \"" + expression + "\", entity: {" + entity
        + "}, duration: " + minutes(from, to) + ") { error results { values { value } } } }").get("r");
    assertThat(r.get("error").isNull()).as(r.toString()).isTrue();
    return r.get("results").get(0).get("values");
  }
}
