package io.sextant.server.dashboards;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.linecorp.armeria.client.grpc.GrpcClients;
import io.envoyproxy.envoy.service.metrics.v3.MetricsServiceGrpc;
import io.grpc.Status;
import io.sextant.api.id.EntityIds;
import io.sextant.server.dashboards.DashboardProbes.Probe;
import io.sextant.server.dashboards.DashboardProbes.Use;
import io.sextant.server.rover.EbpfWidgetOperations;
import io.sextant.server.rover.RoverDashboardTraffic;
import io.sextant.server.testing.Bookinfo;
import io.sextant.server.testing.EnvoyProxyTraffic;
import io.sextant.server.testing.TestServer;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The shipped dashboards against real traffic: the bookinfo mix over mesh telemetry (MESH) and one
 * sidecar's Envoy statistics over the metrics service (MESH_DP) and SkyWalking Rover's processes,
 * meters and sampled requests of one pod ({@link RoverDashboardTraffic}) go in over gRPC; then every
 * expression of every shipped dashboard is evaluated over HTTP GraphQL with each entity the UI would
 * give it. None may fail, each must show the traffic for some entity, and the values we can know from
 * what was sent must be exact.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class DashboardContract {
  private static final DateTimeFormatter MINUTE =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm").withZone(ZoneOffset.UTC);
  private static final int FIELDS_PER_REQUEST = 24;
  private static final Set<String> UNSERVED_WIDGETS = Set.of("Trace", "Profile", "DemandLog", "ThirdPartyApp");
  /** The eBPF widgets and the one entity whose dashboards booster-ui 10.1 lets them sit on. */
  private static final Map<String, String> EBPF_WIDGET_ENTITY = Map.of("Ebpf", "Service", "ContinuousProfiling",
      "Service", "NetworkProfiling", "ServiceInstance", "TaskTimeline", "Process");
  private TestServer sextant;
  private long time;
  private List<JsonNode> dashboards;
  private List<Outcome> minute;
  private List<Outcome> range;
  private List<JsonNode> horizon;
  private List<Outcome> horizonMinute;

  /** An entity as the UI spells it in {@code execExpression}'s {@code entity} argument. */
  public record Target(String label, String entity) {}

  /** What one expression answered for one entity. */
  public record Outcome(String dashboard, Probe probe, Target target, String type, String error, String rendered,
      boolean hasValue, int points) {
    String where() {
      return dashboard + " / " + probe.widget() + ": " + probe.expression() + " @ " + target.label();
    }
  }

  /** Configuration that selects the storage backend under test. */
  protected abstract Map<String, String> storage();

  @BeforeAll
  public void sendTrafficAndEvaluateEveryDashboard() throws Exception {
    Map<String, String> config = new HashMap<>(storage());
    config.put("query.horizonTemplates", HorizonDashboards.DIR.toString());
    sextant = new TestServer(config);
    // Three minutes ago, one second into the minute, so every snapshot and call is in one minute.
    time = (System.currentTimeMillis() / 60_000 - 3) * 60_000 + 1000;
    assertThat(sextant.stream(Bookinfo.standard(time).messages(7)).getCode()).isEqualTo(Status.Code.OK);
    MetricsServiceGrpc.MetricsServiceStub envoy = GrpcClients.builder("http://127.0.0.1:" + sextant.grpcPort)
        .build(MetricsServiceGrpc.MetricsServiceStub.class);
    assertThat(TestServer.clientStream(envoy::streamMetrics, EnvoyProxyTraffic.snapshots(time)).getCode())
        .isEqualTo(Status.Code.OK);
    RoverDashboardTraffic.send(sextant, time);
    sextant.flush();
    dashboards = ShippedDashboards.load();
    minute = evaluateAll(dashboards, duration(time, time));
    range = evaluateAll(dashboards, duration(time - 10 * 60_000L, time + 4 * 60_000L));
    // Horizon's rows as Horizon reads them: from the template store.
    horizon = HorizonDashboards.of(new UiTemplateStore(sextant, null).list(false).json());
    horizonMinute = evaluateAll(horizon, duration(time, time));
  }

  @AfterAll
  public void stop() {
    sextant.close();
  }

  private static String duration(long from, long to) {
    return "{start: \"" + MINUTE.format(Instant.ofEpochMilli(from)) + "\", end: \""
        + MINUTE.format(Instant.ofEpochMilli(to)) + "\", step: MINUTE}";
  }

  @Test
  public void theShippedDashboardsAreWellFormedAndLinkToEachOther() {
    assertThat(dashboards).hasSize(21);
    Map<String, JsonNode> byName = new HashMap<>();
    Set<String> ids = new HashSet<>();
    Set<String> defaults = new HashSet<>();
    Map<String, Integer> roots = new HashMap<>();
    for (JsonNode d : dashboards) {
      JsonNode c = d.path("configuration");
      String id = d.path("id").asText();
      assertThat(id).startsWith("sextant-");
      assertThat(ids.add(id)).as("duplicate id %s", id).isTrue();
      assertThat(c.path("id").asText()).isEqualTo(id);
      assertThat(c.path("layer").asText()).isIn("MESH", "MESH_DP", "K8S_SERVICE");
      assertThat(c.path("entity").asText()).isIn("All", "Service", "ServiceInstance", "Endpoint",
          "ServiceRelation", "ServiceInstanceRelation", "Process", "ProcessRelation");
      assertThat(c.path("isRoot").isBoolean()).as(id).isTrue();
      assertThat(c.path("isDefault").isBoolean()).as(id).isTrue();
      assertThat(byName.put(c.path("name").asText(), c)).as("duplicate name in %s", id).isNull();
      if (c.path("isRoot").asBoolean()) {
        assertThat(c.path("entity").asText()).isEqualTo("All");
        roots.merge(c.path("layer").asText(), 1, Integer::sum);
      }
      if (c.path("isDefault").asBoolean()) {
        assertThat(defaults.add(c.path("layer").asText() + "/" + c.path("entity").asText()))
            .as("two defaults for %s", id).isTrue();
      }
      List<JsonNode> widgets = widgets(c.path("children"));
      for (JsonNode w : widgets) {
        assertThat(UNSERVED_WIDGETS).as("%s has a %s widget", id, w.path("type"))
            .doesNotContain(w.path("type").asText());
        String onlyOn = EBPF_WIDGET_ENTITY.get(w.path("type").asText());
        if (onlyOn != null) {
          assertThat(c.path("entity").asText()).as("entity of %s with a %s widget", id, w.path("type"))
              .isEqualTo(onlyOn);
        }
      }
      boolean hasEvent = widgets.stream().anyMatch(w -> w.path("type").asText().equals("Event"));
      boolean serviceOrInstance = Set.of("Service", "ServiceInstance").contains(c.path("entity").asText());
      assertThat(hasEvent).as("%s has an Event widget", id).isEqualTo(serviceOrInstance);
    }
    assertThat(roots).containsExactlyInAnyOrderEntriesOf(Map.of("MESH", 1, "MESH_DP", 1, "K8S_SERVICE", 1));
    // Every dashboard a widget links to exists, in the same layer and of the entity the UI opens.
    for (JsonNode d : dashboards) {
      JsonNode c = d.path("configuration");
      for (JsonNode w : widgets(c.path("children"))) {
        String graph = w.path("graph").path("type").asText();
        switch (graph) {
          case "ServiceList" -> assertLink(byName, c, w.path("graph").path("dashboardName"), "Service");
          case "InstanceList" -> assertLink(byName, c, w.path("graph").path("dashboardName"), "ServiceInstance");
          case "EndpointList" -> assertLink(byName, c, w.path("graph").path("dashboardName"), "Endpoint");
          default -> { }
        }
        // The eBPF widgets open a process (relation) dashboard of their layer by name.
        switch (w.path("type").asText()) {
          case "NetworkProfiling", "TaskTimeline" ->
              assertLink(byName, c, w.path("linkDashboard"), "ProcessRelation");
          case "ContinuousProfiling" -> assertLink(byName, c, w.path("processDashboardName"), "Process");
          default -> { }
        }
        if (w.path("type").asText().equals("Topology")) {
          boolean serviceMap = Set.of("All", "Service").contains(c.path("entity").asText());
          assertLink(byName, c, w.path("linkDashboard"), serviceMap ? "ServiceRelation" : "ServiceInstanceRelation");
          if (serviceMap) {
            for (JsonNode n : w.path("nodeDashboard")) {
              assertLink(byName, c, n.path("dashboard"), n.path("scope").asText());
            }
          } else {
            assertLink(byName, c, w.path("nodeDashboard"), "ServiceInstance");
          }
        }
      }
    }
  }

  private static void assertLink(Map<String, JsonNode> byName, JsonNode from, JsonNode name, String entity) {
    JsonNode to = byName.get(name.asText());
    assertThat(to).as("%s links to missing dashboard '%s'", from.path("name").asText(), name.asText()).isNotNull();
    assertThat(to.path("layer").asText()).isEqualTo(from.path("layer").asText());
    assertThat(to.path("entity").asText()).as("entity of %s", name.asText()).isEqualTo(entity);
  }

  /** Top-level widgets and the widgets of every tab. */
  private static List<JsonNode> widgets(JsonNode children) {
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode w : children) {
      out.add(w);
      if (w.path("type").asText().equals("Tab")) {
        for (JsonNode tab : w.path("children")) {
          out.addAll(widgets(tab.path("children")));
        }
      }
    }
    return out;
  }

  @Test
  public void everyExpressionAnswersWithoutError() {
    List<String> failures = new ArrayList<>();
    for (List<Outcome> run : List.of(minute, range)) {
      run.stream().filter(o -> o.error() != null).forEach(o -> failures.add(o.where() + " -> " + o.error()));
    }
    assertThat(failures).as("expressions that failed").isEmpty();
    // Every dashboard has expressions, and each was evaluated against real entities.
    Set<String> evaluated = new TreeSet<>();
    minute.forEach(o -> evaluated.add(o.dashboard()));
    Set<String> withExpressions = new TreeSet<>();
    dashboards.stream().map(d -> d.path("configuration"))
        .filter(c -> !DashboardProbes.of(c).isEmpty()).forEach(c -> withExpressions.add(c.path("name").asText()));
    assertThat(evaluated).isEqualTo(withExpressions).hasSize(21);
    assertThat(minute).hasSizeGreaterThan(500);
  }

  @Test
  public void everyExpressionShowsTheTrafficForSomeEntity() {
    assertThat(withNoValue(minute)).as("expressions with no value for any entity").isEmpty();
  }

  /**
   * Sextant's Horizon templates, read back from the template store: every expression of the layer
   * landings, dashboards, service and instance maps and the mesh overview's tiles answers without
   * error and shows the traffic (widgets Horizon hides without data aside).
   */
  @Test
  public void horizonTemplatesAnswerAndShowTheTraffic() {
    Set<String> names = new TreeSet<>();
    horizon.forEach(d -> names.add(d.path("id").asText()));
    assertThat(names).contains("horizon.layer.MESH service", "horizon.layer.MESH topology",
        "horizon.layer.MESH instance topology", "horizon.layer.MESH_DP instance", "horizon.layer.K8S_SERVICE landing",
        "horizon.layer.K8S_SERVICE endpoint", "horizon.overview.mesh mesh_tile", "horizon.overview.mesh k8s_tile");
    assertThat(horizonMinute.stream().filter(o -> o.error() != null).map(o -> o.where() + " -> " + o.error()))
        .as("expressions that failed").isEmpty();
    assertThat(withNoValue(horizonMinute.stream()
        .filter(o -> !o.dashboard().endsWith(HorizonDashboards.WHEN_PRESENT)).toList()))
        .as("expressions with no value for any entity").isEmpty();
    assertThat(horizonMinute).hasSizeGreaterThan(300);
  }

  private static List<String> withNoValue(List<Outcome> run) {
    Map<String, Boolean> shown = new LinkedHashMap<>();
    for (Outcome o : run) {
      shown.merge(o.dashboard() + " / " + o.probe().widget() + ": " + o.probe().expression(), o.hasValue(),
          Boolean::logicalOr);
    }
    return shown.entrySet().stream().filter(e -> !e.getValue()).map(Map.Entry::getKey).toList();
  }

  @Test
  public void rangeQueriesAnswerOnePointPerMinute() {
    for (Outcome o : range) {
      // A labelled metric with no data for the entity has no series at all (SkyWalking's answer too).
      if (o.type().equals("TIME_SERIES_VALUES") && !(o.points() == 0 && o.rendered().isEmpty())) {
        assertThat(o.points()).as(o.where()).isEqualTo(15);
      }
    }
    // The traffic's minute still shows inside the range.
    assertThat(value(range, "Sextant-Mesh-Service", "service_cpm", "productpage")).contains("10");
  }

  @Test
  public void meshDashboardsShowTheCallsSent() {
    String root = "Sextant-Mesh-Root";
    assertValue(root, "avg(service_cpm)", "productpage", "10");
    assertValue(root, "avg(service_sla)/100", "productpage", "80");
    assertValue(root, "avg(service_resp_time)", "productpage", "55");
    assertValue(root, "avg(service_apdex)/10000", "productpage", "0.8");
    assertValue(root, "service_sla/100", "reviews", "87.5");
    assertValue(root, "avg(service_cpm)", "istio-ingressgateway", "null");
    // Topology legend: productpage is below 95% with traffic, details is not.
    assertValue(root, "(avg(service_sla) < 9500) * (avg(service_cpm) > 1) == 1", "productpage", "1");
    assertValue(root, "(avg(service_sla) < 9500) * (avg(service_cpm) > 1) == 1", "details", "0");
    assertValue(root, "avg(service_relation_client_cpm)", "productpage->reviews", "8");
    assertValue(root, "avg(service_relation_server_resp_time)", "productpage->reviews", "45");
    assertValue(root, "top_n(service_cpm,10,des,attr0='MESH')", "all",
        "productpage:10,reviews:8,details:6,ratings:4");
    assertValue(root, "top_n(service_resp_time,10,des,attr0='MESH')", "all",
        "productpage:55,reviews:45,details:7,ratings:4");
    assertThat(value(minute, root, "top_n(service_sla,10,asc,attr0='MESH')/100", "all"))
        .startsWith("productpage:80,reviews:87.5,");

    String service = "Sextant-Mesh-Service";
    assertValue(service, "avg(service_cpm)", "reviews", "8");
    assertValue(service, "service_resp_time", "details", "7");
    assertValue(service, "service_throughput_received", "mongodb", "3000");
    assertValue(service, "service_throughput_sent", "mongodb", "600");
    assertValue(service, "service_sidecar_internal_req_latency_nanos", "productpage", "5500");
    assertValue(service, "top_n(service_instance_cpm,10,des)", "productpage", "productpage-v1-0:10");
    assertValue(service, "top_n(endpoint_cpm,10,des)", "reviews", "GET:/reviews/0:8");
    assertValue(service, "avg(service_instance_sla)/100", "reviews/reviews-v1-0", "75");
    assertValue(service, "avg(endpoint_sla)/100", "productpage/GET:/productpage", "80");

    assertValue("Sextant-Mesh-Instance", "service_instance_cpm", "reviews/reviews-v1-0", "4");
    assertValue("Sextant-Mesh-Instance", "avg(service_instance_resp_time)", "reviews/reviews-v2-0", "45");
    assertValue("Sextant-Mesh-Instance", "service_instance_throughput_received", "mongodb/mongodb-0", "3000");
    assertValue("Sextant-Mesh-Endpoint", "endpoint_cpm", "reviews/GET:/reviews/0", "8");
    assertValue("Sextant-Mesh-Endpoint", "endpoint_sla/100", "productpage/GET:/productpage", "80");

    String relation = "Sextant-Mesh-Service-Relation";
    assertValue(relation, "service_relation_client_cpm", "productpage->reviews", "8");
    assertValue(relation, "service_relation_client_call_sla/100", "productpage->reviews", "87.5");
    assertValue(relation, "service_relation_server_resp_time", "productpage->reviews", "45");
    assertValue(relation, "service_relation_client_received", "reviews->mongodb", "3000");
    // Bookinfo's sidecars took every call over mutual TLS.
    assertValue(relation, "service_relation_server_mtls_percent/100", "productpage->reviews", "100");
    assertValue(relation, "service_client_sidecar_internal_req_latency_nanos", "productpage->reviews", "2500");
    assertValue(relation, "avg(service_instance_cpm)", "reviews/reviews-v1-0", "4");
    assertValue(relation, "avg(service_instance_relation_server_cpm)",
        "productpage/productpage-v1-0->reviews/reviews-v1-0", "4");
    String instanceRelation = "Sextant-Mesh-Instance-Relation";
    assertValue(instanceRelation, "service_instance_relation_server_cpm",
        "productpage/productpage-v1-0->reviews/reviews-v1-0", "4");
    assertValue(instanceRelation, "service_instance_relation_client_call_sla/100",
        "productpage/productpage-v1-0->reviews/reviews-v1-0", "75");
  }

  @Test
  public void dataPlaneDashboardsShowTheStatisticsSent() {
    String pod = "productpage.default/" + EnvoyProxyTraffic.PRODUCTPAGE.name();
    String instance = "Sextant-Mesh-DP-Instance";
    assertValue(instance, "avg(envoy_heap_memory_used)/1048576", pod, "190.7349");
    assertValue(instance, "latest(envoy_total_connections_used)", pod, "20");
    assertValue(instance, "latest(envoy_worker_threads)", pod, "2");
    assertValue(instance, "envoy_memory_physical_size/1048576", pod, "381.4697");
    assertValue(instance, "envoy_parent_connections_used", pod, "4");
    assertValue(instance, "sum(envoy_bug_failures)", pod, "1");
    assertValue(instance, "envoy_cluster_up_rq_active", pod, "cluster_name=reviews.default 5");
    assertValue(instance, "envoy_cluster_membership_healthy", pod,
        "cluster_name=details.default 1; cluster_name=reviews.default 2");
    assertValue(instance, "envoy_cluster_up_rq_incr", pod,
        "cluster_name=details.default 14; cluster_name=reviews.default 100");
    assertValue(instance, "envoy_cluster_up_cx_incr", pod, "cluster_name=reviews.default 2");
    assertValue(instance, "envoy_cluster_lb_healthy_panic_incr", pod, "cluster_name=reviews.default 1");
    assertValue(instance, "envoy_cluster_up_cx_none_healthy_incr", pod, "cluster_name=details.default 3");
    assertValue(instance, "envoy_listener_cx_active_imbalance", pod, "listener=0.0.0.0_15006 150");
    assertValue(instance, "envoy_listener_cx_incr_imbalance", pod, "listener=0.0.0.0_15006 125");
    assertValue(instance, "envoy_worker_cx_active", pod, "worker=0 6; worker=1 2");
    assertValue(instance, "envoy_worker_cx_incr", pod, "worker=0 20; worker=1 10");
    assertValue(instance, "envoy_worker_watchdog_miss_incr", pod, "worker=1 2");
    assertValue(instance, "envoy_worker_watchdog_mega_miss_incr", pod, "worker=main_thread 1");

    assertValue("Sextant-Mesh-DP-Service", "avg(envoy_total_connections_used)", pod, "20");
    assertValue("Sextant-Mesh-DP-Service", "top_n(envoy_total_connections_used,10,des)", "productpage.default",
        EnvoyProxyTraffic.PRODUCTPAGE.name() + ":20");
    assertValue("Sextant-Mesh-DP-Root", "top_n(envoy_heap_memory_used,10,des,attr0='MESH_DP')/1048576", "all",
        EnvoyProxyTraffic.PRODUCTPAGE.name() + ":190.7349");

    String relation = "Sextant-Mesh-DP-Service-Relation";
    assertValue(relation, "envoy_sr_cluster_up_rq_active", "productpage.default->reviews.default", "5");
    assertValue(relation, "envoy_sr_cluster_up_rq_incr", "productpage.default->details.default", "14");
    assertValue(relation, "envoy_sr_cluster_up_cx_active", "productpage.default->reviews.default", "2");
    assertValue(relation, "envoy_sr_cluster_up_cx_none_healthy_incr", "productpage.default->details.default", "3");
    assertValue("Sextant-Mesh-DP-Root", "avg(envoy_sr_cluster_up_rq_incr)", "productpage.default->reviews.default",
        "100");
  }

  @Test
  public void ebpfDashboardsShowWhatRoverSent() {
    String process = "Sextant-Mesh-Process";
    String at = RoverDashboardTraffic.PROCESS;
    assertValue(process, "continuous_profiling_process_cpu/10000", at, "0.42");
    assertValue(process, "continuous_profiling_process_thread_count", at, "17");
    assertValue(process, "continuous_profiling_system_load/100", at, "1.5");
    assertValue(process, "continuous_profiling_http_error_rate/100", at, "uri=/reviews/0 12.5");
    assertValue(process, "continuous_profiling_http_avg_response_time", at, "uri=/reviews/0 45");
    // The sidecar is a process of the same pod, with no continuous-profiling meters.
    assertValue(process, "continuous_profiling_process_cpu/10000", "reviews/reviews-v1-0/envoy", "null");

    // The pod outside the mesh: Rover puts its processes in K8S_SERVICE, and its dashboards show them.
    String k8s = RoverDashboardTraffic.K8S_POD.process();
    assertValue("Sextant-K8s-Process", "continuous_profiling_process_cpu/10000", k8s, "0.42");
    assertValue("Sextant-K8s-Process", "continuous_profiling_http_avg_response_time", k8s, "uri=/reviews/0 45");
    for (String relation : List.of("Sextant-Mesh-Process-Relation", "Sextant-Mesh-DP-Process-Relation",
        "Sextant-K8s-Process-Relation")) {
      String calls = relation.startsWith("Sextant-K8s") ? RoverDashboardTraffic.K8S_POD.relation()
          : RoverDashboardTraffic.RELATION;
      assertValue(relation, "process_relation_client_write_cpm", calls, "30");
      assertValue(relation, "process_relation_client_write_total_bytes/1024", calls, "4");
      assertValue(relation, "process_relation_client_write_avg_exe_time/1000000", calls, "2.5");
      assertValue(relation, "process_relation_server_read_cpm", calls, "3");
      assertValue(relation, "process_relation_client_write_rtt_time_percentile", calls,
          "p=50 2048; p=70 2048; p=90 2048; p=99 2048");
      assertValue(relation, "process_relation_http1_request_cpm", calls, "30");
      assertValue(relation, "process_relation_http1_response_status_cpm", calls, "code=200 25; code=404 5");
      assertValue(relation, "process_relation_http1_client_duration", calls, "12");
      assertValue(relation, "process_relation_http1_request_package_size_percentile/1024", calls,
          "p=50 2; p=70 2; p=90 2; p=99 2");
      assertValue(relation, "top_n(sampled_slow_trace_record,50,DES)", calls, "/reviews/1:1200,/reviews/0:300");
      assertValue(relation, "top_n(sampled_status_4xx_trace_record,50,DES)", calls, "/reviews/404:20");
      assertValue(relation, "top_n(sampled_status_5xx_trace_record,50,DES)", calls, "/reviews/500:80");
    }
  }

  @Test
  public void theEbpfWidgetsOperationsAreServed() throws Exception {
    String serviceId = EntityIds.serviceId(RoverDashboardTraffic.SERVICE, true);
    String instanceId = EntityIds.instanceId(serviceId, RoverDashboardTraffic.POD);
    long now = System.currentTimeMillis();
    Map<String, Object> page = EbpfWidgetOperations.vars("start", MINUTE.format(Instant.ofEpochMilli(time)),
        "end", MINUTE.format(Instant.ofEpochMilli(now)), "step", "MINUTE");

    List<EbpfWidgetOperations.Answer> answers = new EbpfWidgetOperations(sextant)
        .sendAll(serviceId, instanceId, RoverDashboardTraffic.APP_ID, page, now);

    assertThat(answers.stream().filter(EbpfWidgetOperations.Answer::failed)
        .map(a -> a.operation() + ": " + a.response().get("errors")).toList()).as("operations that failed").isEmpty();
    Map<String, JsonNode> first = new HashMap<>();
    answers.forEach(a -> first.putIfAbsent(a.operation(), a.response().path("data")));
    assertThat(first.get("getProcesses").path("processes").findValuesAsText("label"))
        .containsExactlyInAnyOrder("java", "envoy");
    assertThat(first.get("queryProcess").path("process").path("label").asText()).isEqualTo("java");
    assertThat(first.get("getCreateTaskData").path("createTaskData").path("couldProfiling").asBoolean()).isTrue();
    String fixed = first.get("saveEBPFTask").path("createTaskData").path("id").asText();
    assertThat(first.get("getEBPFTasks").path("queryEBPFTasks").findValuesAsText("taskId")).contains(fixed);
    assertThat(first.get("aliveNetworkProfiling").path("keepEBPFNetworkProfiling").path("status").asBoolean())
        .isTrue();
    assertThat(first.get("getProcessTopology").path("topology").path("nodes").findValuesAsText("name"))
        .containsExactlyInAnyOrder("java", "envoy");
    assertThat(first.get("editStrategy").path("strategy").path("status").asBoolean()).isTrue();
    JsonNode policies = first.get("getStrategyList").path("strategyList");
    assertThat(policies).hasSize(1);
    assertThat(policies.get(0).path("type").asText()).isEqualTo("ON_CPU");
    assertThat(policies.get(0).path("checkItems").get(0).path("type").asText()).isEqualTo("PROCESS_CPU");
  }

  private void assertValue(String dashboard, String expression, String label, String expected) {
    assertThat(value(minute, dashboard, expression, label))
        .as("%s: %s @ %s", dashboard, expression, label).isEqualTo(expected);
  }

  /** The one value every widget of the dashboard showed for that expression and entity. */
  private static String value(List<Outcome> run, String dashboard, String expression, String label) {
    Set<String> seen = new TreeSet<>();
    for (Outcome o : run) {
      if (o.dashboard().equals(dashboard) && o.probe().expression().equals(expression)
          && o.target().label().equals(label)) {
        seen.add(o.rendered());
      }
    }
    assertThat(seen).as("%s: %s @ %s evaluated, and alike wherever shown", dashboard, expression, label)
        .hasSize(1);
    return seen.iterator().next();
  }

  // ---- evaluation: the entities the UI would use, and the requests it would send ----

  private List<Outcome> evaluateAll(List<JsonNode> dashboards, String duration) throws Exception {
    // Rover registers its processes at the collector's clock (now) while the traffic is a few minutes
    // old: the processes are listed over a window from the traffic to now, as the UI's last-minutes
    // window holds both.
    String listing = duration(time, System.currentTimeMillis() + 60_000L);
    List<Outcome> out = new ArrayList<>();
    Map<String, Entities> byLayer = new HashMap<>();
    for (JsonNode d : dashboards) {
      JsonNode c = d.path("configuration");
      Entities entities = byLayer.computeIfAbsent(c.path("layer").asText(),
          layer -> new Entities(layer, duration, listing));
      List<Object[]> work = new ArrayList<>();
      for (Probe p : DashboardProbes.of(c)) {
        for (Target t : entities.targets(c.path("entity").asText(), p.use())) {
          work.add(new Object[] {p, t});
        }
      }
      for (int i = 0; i < work.size(); i += FIELDS_PER_REQUEST) {
        out.addAll(evaluate(c.path("name").asText(), work.subList(i, Math.min(work.size(), i + FIELDS_PER_REQUEST)),
            duration));
      }
    }
    return out;
  }

  /** One request of aliased execExpression fields, as the UI batches a dashboard's widgets. */
  private List<Outcome> evaluate(String dashboard, List<Object[]> work, String duration) throws Exception {
    StringBuilder q = new StringBuilder("{");
    for (int i = 0; i < work.size(); i++) {
      Probe p = (Probe) work.get(i)[0];
      Target t = (Target) work.get(i)[1];
      q.append(" e").append(i).append(": execExpression(expression: ").append(quote(p.expression()))
          .append(", entity: {").append(t.entity()).append("}, duration: ").append(duration)
          .append(") { type error results { metric { labels { key value } } values { id value } } }");
    }
    JsonNode data = sextant.data(q.append(" }").toString());
    List<Outcome> out = new ArrayList<>();
    for (int i = 0; i < work.size(); i++) {
      JsonNode r = data.get("e" + i);
      out.add(outcome(dashboard, (Probe) work.get(i)[0], (Target) work.get(i)[1], r));
    }
    return out;
  }

  private static Outcome outcome(String dashboard, Probe probe, Target target, JsonNode r) {
    String type = r.path("type").asText();
    boolean ranked = type.equals("SORTED_LIST") || type.equals("RECORD_LIST");
    List<String> series = new ArrayList<>();
    boolean hasValue = false;
    int points = 0;
    for (JsonNode s : r.path("results")) {
      List<String> labels = new ArrayList<>();
      s.path("metric").path("labels").forEach(l -> labels.add(l.path("key").asText() + "=" + l.path("value").asText()));
      List<String> values = new ArrayList<>();
      for (JsonNode v : s.path("values")) {
        String value = v.path("value").isNull() ? "null" : v.path("value").asText();
        hasValue |= !v.path("value").isNull();
        values.add(ranked ? v.path("id").asText() + ":" + value : value);
      }
      points = Math.max(points, values.size());
      // Over a range, only the traffic's minute is non-null: show the non-null points.
      List<String> shown = values.size() > 1 ? values.stream().filter(v -> !v.endsWith("null")).toList() : values;
      series.add((labels.isEmpty() ? "" : String.join(",", labels) + " ") + String.join(",", shown));
    }
    String error = r.path("error").isNull() || r.path("error").isMissingNode() ? null : r.path("error").asText();
    return new Outcome(dashboard, probe, target, type, error, String.join("; ", series), hasValue, points);
  }

  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  /** The entities of one layer, read over GraphQL as the UI's selectors and topology read them. */
  private final class Entities {
    private final String layer;
    private final String duration;
    private final String listing;
    private final Map<String, List<Target>> known = new HashMap<>();

    Entities(String layer, String duration, String listing) {
      this.layer = layer;
      this.duration = duration;
      this.listing = listing;
    }

    List<Target> targets(String dashboardEntity, Use use) throws Exception {
      String key = dashboardEntity + "/" + use;
      List<Target> targets = known.get(key);
      if (targets == null) {
        targets = read(dashboardEntity, use);
        known.put(key, targets);
      }
      return targets;
    }

    private List<Target> read(String dashboardEntity, Use use) throws Exception {
      return switch (use) {
        case DASHBOARD_ENTITY -> ofEntity(dashboardEntity);
        case SERVICE_LIST -> ofEntity("Service");
        case INSTANCE_LIST -> ofEntity("ServiceInstance");
        case ENDPOINT_LIST -> ofEntity("Endpoint");
        case TOPOLOGY_NODE, TOPOLOGY_CLIENT_CALL, TOPOLOGY_SERVER_CALL -> {
          List<Target> out = new ArrayList<>();
          for (JsonNode topo : topologies(dashboardEntity)) {
            out.addAll(topologyTargets(topo, use, dashboardEntity.equals("ServiceRelation")));
          }
          yield out;
        }
      };
    }

    private List<Target> ofEntity(String entity) throws Exception {
      List<Target> out = new ArrayList<>();
      switch (entity) {
        case "All" -> out.add(new Target("all", ""));
        case "Service" -> {
          for (JsonNode s : services()) {
            out.add(new Target(s.path("name").asText(), service(s.path("name").asText(), s.path("normal"))));
          }
        }
        case "ServiceInstance" -> {
          for (JsonNode s : services()) {
            JsonNode list = sextant.data("{ listInstances(duration: " + duration + ", serviceId: \""
                + s.path("id").asText() + "\") { name } }").path("listInstances");
            for (JsonNode i : list) {
              out.add(new Target(s.path("name").asText() + "/" + i.path("name").asText(),
                  service(s.path("name").asText(), s.path("normal")) + ", serviceInstanceName: "
                      + quote(i.path("name").asText())));
            }
          }
        }
        case "Endpoint" -> {
          for (JsonNode s : services()) {
            JsonNode list = sextant.data("{ findEndpoint(serviceId: \"" + s.path("id").asText()
                + "\", keyword: \"\", limit: 100) { name } }").path("findEndpoint");
            for (JsonNode e : list) {
              out.add(new Target(s.path("name").asText() + "/" + e.path("name").asText(),
                  service(s.path("name").asText(), s.path("normal")) + ", endpointName: "
                      + quote(e.path("name").asText())));
            }
          }
        }
        case "ServiceRelation" -> {
          for (JsonNode topo : topologies("All")) {
            out.addAll(topologyTargets(topo, Use.TOPOLOGY_CLIENT_CALL, false));
            out.addAll(topologyTargets(topo, Use.TOPOLOGY_SERVER_CALL, false));
          }
        }
        case "ServiceInstanceRelation" -> {
          for (JsonNode topo : topologies("ServiceRelation")) {
            out.addAll(topologyTargets(topo, Use.TOPOLOGY_CLIENT_CALL, true));
            out.addAll(topologyTargets(topo, Use.TOPOLOGY_SERVER_CALL, true));
          }
        }
        case "Process" -> {
          for (JsonNode s : services()) {
            for (JsonNode i : instances(s)) {
              JsonNode list = sextant.data("{ listProcesses(duration: " + listing + ", instanceId: \""
                  + i.path("id").asText() + "\") { name } }").path("listProcesses");
              for (JsonNode p : list) {
                out.add(new Target(s.path("name").asText() + "/" + i.path("name").asText() + "/"
                    + p.path("name").asText(), process(s.path("name").asText(), s.path("normal").asBoolean(),
                    i.path("name").asText(), p.path("name").asText(), "")));
              }
            }
          }
        }
        case "ProcessRelation" -> {
          for (JsonNode s : services()) {
            for (JsonNode i : instances(s)) {
              out.addAll(processCalls(s, i.path("id").asText()));
            }
          }
        }
        default -> throw new AssertionError("no entities for dashboard entity " + entity);
      }
      return distinct(out);
    }

    private JsonNode instances(JsonNode service) throws Exception {
      return sextant.data("{ listInstances(duration: " + listing + ", serviceId: \"" + service.path("id").asText()
          + "\") { id name } }").path("listInstances");
    }

    /**
     * The calls of an instance's process topology (the NetworkProfiling widget), as the relation
     * dashboard it opens gives them: both ends by service, instance and process name, normal as the
     * selected service's (the UI's destination service is the same service).
     */
    private List<Target> processCalls(JsonNode service, String instanceId) throws Exception {
      JsonNode topo = sextant.data("{ t: getProcessTopology(serviceInstanceId: \"" + instanceId + "\", duration: "
          + duration + ") { nodes { id name serviceName serviceInstanceName } calls { source target } } }")
          .path("t");
      Map<String, JsonNode> nodes = new HashMap<>();
      topo.path("nodes").forEach(n -> nodes.put(n.path("id").asText(), n));
      List<Target> out = new ArrayList<>();
      boolean normal = service.path("normal").asBoolean();
      for (JsonNode call : topo.path("calls")) {
        JsonNode from = nodes.get(call.path("source").asText());
        JsonNode to = nodes.get(call.path("target").asText());
        out.add(new Target(processLabel(from) + "->" + processLabel(to),
            process(from, normal, "") + ", " + process(to, normal, "dest")));
      }
      return out;
    }

    private static String processLabel(JsonNode node) {
      return node.path("serviceName").asText() + "/" + node.path("serviceInstanceName").asText() + "/"
          + node.path("name").asText();
    }

    /** A process as the MQE entity names it, or the destination one with {@code prefix} "dest". */
    private String process(JsonNode node, boolean normal, String prefix) {
      return process(node.path("serviceName").asText(), normal, node.path("serviceInstanceName").asText(),
          node.path("name").asText(), prefix);
    }

    private String process(String service, boolean normal, String instance, String process, String prefix) {
      boolean dest = !prefix.isEmpty();
      return (dest ? "destServiceName: " : "serviceName: ") + quote(service)
          + (dest ? ", destNormal: " : ", normal: ") + normal
          + (dest ? ", destServiceInstanceName: " : ", serviceInstanceName: ") + quote(instance)
          + (dest ? ", destProcessName: " : ", processName: ") + quote(process);
    }

    private JsonNode services() throws Exception {
      return sextant.data("{ listServices(layer: \"" + layer + "\") { id name normal } }").path("listServices");
    }

    /** The topologies a Topology widget shows: global (All), each service's, or each relation's instances. */
    private List<JsonNode> topologies(String dashboardEntity) throws Exception {
      String fields = " { nodes { id name isReal } calls { source target detectPoints } } }";
      List<JsonNode> out = new ArrayList<>();
      switch (dashboardEntity) {
        case "All" -> out.add(sextant.data("{ t: getGlobalTopology(duration: " + duration + ", layer: \"" + layer
            + "\")" + fields).path("t"));
        case "Service" -> {
          for (JsonNode s : services()) {
            out.add(sextant.data("{ t: getServiceTopology(serviceId: \"" + s.path("id").asText() + "\", duration: "
                + duration + ")" + fields).path("t"));
          }
        }
        case "ServiceRelation" -> {
          JsonNode global = topologies("All").get(0);
          for (JsonNode call : global.path("calls")) {
            out.add(sextant.data("{ t: getServiceInstanceTopology(clientServiceId: \""
                + call.path("source").asText() + "\", serverServiceId: \"" + call.path("target").asText()
                + "\", duration: " + duration + ") { nodes { id name serviceName isReal }"
                + " calls { source target detectPoints } } }").path("t"));
          }
        }
        default -> throw new AssertionError("no topology on a " + dashboardEntity + " dashboard");
      }
      return out;
    }

    /** Nodes (real ones) or calls (seen from the given side) as the UI's topology entities. */
    private List<Target> topologyTargets(JsonNode topo, Use use, boolean instances) {
      Map<String, JsonNode> nodes = new HashMap<>();
      topo.path("nodes").forEach(n -> nodes.put(n.path("id").asText(), n));
      List<Target> out = new ArrayList<>();
      if (use == Use.TOPOLOGY_NODE) {
        for (JsonNode n : topo.path("nodes")) {
          if (n.path("isReal").asBoolean()) {
            out.add(node(n, instances, ""));
          }
        }
        return out;
      }
      String side = use == Use.TOPOLOGY_CLIENT_CALL ? "CLIENT" : "SERVER";
      for (JsonNode call : topo.path("calls")) {
        if (!call.path("detectPoints").toString().contains("\"" + side + "\"")) {
          continue;
        }
        Target from = node(nodes.get(call.path("source").asText()), instances, "");
        Target to = node(nodes.get(call.path("target").asText()), instances, "dest");
        out.add(new Target(from.label() + "->" + to.label(), from.entity() + ", " + to.entity()));
      }
      return out;
    }

    private Target node(JsonNode n, boolean instance, String prefix) {
      String normal = prefix.isEmpty() ? "normal" : "destNormal";
      String service = prefix.isEmpty() ? "serviceName" : "destServiceName";
      if (!instance) {
        return new Target(n.path("name").asText(), service + ": " + quote(n.path("name").asText()) + ", " + normal
            + ": " + n.path("isReal").asBoolean());
      }
      String instanceField = prefix.isEmpty() ? "serviceInstanceName" : "destServiceInstanceName";
      return new Target(n.path("serviceName").asText() + "/" + n.path("name").asText(),
          service + ": " + quote(n.path("serviceName").asText()) + ", " + instanceField + ": "
              + quote(n.path("name").asText()) + ", " + normal + ": " + n.path("isReal").asBoolean());
    }

    private String service(String name, JsonNode normal) {
      return "serviceName: " + quote(name) + ", normal: " + normal.asBoolean();
    }

    private List<Target> distinct(List<Target> targets) {
      Map<String, Target> byLabel = new LinkedHashMap<>();
      targets.forEach(t -> byLabel.putIfAbsent(t.label(), t));
      return new ArrayList<>(byLabel.values());
    }
  }
}
