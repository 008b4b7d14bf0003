package io.sextant.core.metric;

import static io.sextant.core.metric.Functions.apdex;
import static io.sextant.core.metric.Functions.cpm;
import static io.sextant.core.metric.Functions.longAvg;
import static io.sextant.core.metric.Functions.percent;
import static io.sextant.core.metric.Functions.percentile;
import static io.sextant.core.metric.Functions.sum;

import io.sextant.api.model.CallRecord;
import io.sextant.api.model.FlowRecord;
import io.sextant.api.model.MeshRecord;
import io.sextant.api.model.Observation;
import io.sextant.api.model.Scope;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * SkyWalking's service-mesh metrics (core.oal, mesh.oal, tcp.oal) as one table, with the same
 * names, sources, filters and functions, so dashboards and alarms written for SkyWalking work.
 */
public final class MeshMetricTable implements MetricTable {
  private static final ToLongFunction<Observation> LATENCY = r -> ((CallRecord) r).latencyMillis();
  private static final Predicate<Observation> SUCCESS = r -> ((CallRecord) r).success();
  private static final ToLongFunction<Observation> REQ_NANOS = r -> ((MeshRecord) r).internalRequestLatencyNanos();
  private static final ToLongFunction<Observation> RESP_NANOS = r -> ((MeshRecord) r).internalResponseLatencyNanos();
  private static final ToLongFunction<Observation> RECEIVED = r -> ((FlowRecord) r).receivedBytes();
  private static final ToLongFunction<Observation> SENT = r -> ((FlowRecord) r).sentBytes();
  private static final Predicate<Observation> MTLS = r -> "mTLS".equals(r.tlsMode());

  private final long apdexThresholdMillis;

  public MeshMetricTable(long apdexThresholdMillis) {
    this.apdexThresholdMillis = apdexThresholdMillis;
  }

  @Override
  public List<MetricDefinition> definitions() {
    List<MetricDefinition> t = new ArrayList<>();
    // Service, instance and endpoint metrics come from server-side reports only.
    call(t, "service_cpm", Scope.SERVICE, Side.ANY, cpm());
    call(t, "service_resp_time", Scope.SERVICE, Side.ANY, longAvg(LATENCY));
    call(t, "service_sla", Scope.SERVICE, Side.ANY, percent(SUCCESS));
    call(t, "service_apdex", Scope.SERVICE, Side.ANY, apdex(LATENCY, SUCCESS, apdexThresholdMillis));
    call(t, "service_percentile", Scope.SERVICE, Side.ANY, percentile(LATENCY));

    call(t, "service_instance_cpm", Scope.SERVICE_INSTANCE, Side.ANY, cpm());
    call(t, "service_instance_resp_time", Scope.SERVICE_INSTANCE, Side.ANY, longAvg(LATENCY));
    call(t, "service_instance_sla", Scope.SERVICE_INSTANCE, Side.ANY, percent(SUCCESS));

    call(t, "endpoint_cpm", Scope.ENDPOINT, Side.ANY, cpm());
    call(t, "endpoint_resp_time", Scope.ENDPOINT, Side.ANY, longAvg(LATENCY));
    call(t, "endpoint_sla", Scope.ENDPOINT, Side.ANY, percent(SUCCESS));
    call(t, "endpoint_percentile", Scope.ENDPOINT, Side.ANY, percentile(LATENCY));

    for (Side side : new Side[] {Side.CLIENT, Side.SERVER}) {
      String s = side.name().toLowerCase(Locale.ROOT);
      call(t, "service_relation_" + s + "_cpm", Scope.SERVICE_RELATION, side, cpm());
      call(t, "service_relation_" + s + "_call_sla", Scope.SERVICE_RELATION, side, percent(SUCCESS));
      call(t, "service_relation_" + s + "_resp_time", Scope.SERVICE_RELATION, side, longAvg(LATENCY));
      call(t, "service_relation_" + s + "_percentile", Scope.SERVICE_RELATION, side, percentile(LATENCY));
      Scope ir = Scope.SERVICE_INSTANCE_RELATION;
      call(t, "service_instance_relation_" + s + "_cpm", ir, side, cpm());
      call(t, "service_instance_relation_" + s + "_call_sla", ir, side, percent(SUCCESS));
      call(t, "service_instance_relation_" + s + "_resp_time", ir, side, longAvg(LATENCY));
      call(t, "service_instance_relation_" + s + "_percentile", ir, side, percentile(LATENCY));
    }

    // The share of an edge's calls (connections) the server's proxy took over mutual TLS, as Kiali's
    // security view shows it; only the server side knows (a client's proxy logs its app's plain hop).
    call(t, "service_relation_server_mtls_percent", Scope.SERVICE_RELATION, Side.SERVER, percent(MTLS));
    call(t, "service_instance_relation_server_mtls_percent", Scope.SERVICE_INSTANCE_RELATION, Side.SERVER,
        percent(MTLS));

    // Sidecar-internal latencies (mesh.oal), in nanoseconds.
    call(t, "service_sidecar_internal_req_latency_nanos", Scope.SERVICE, Side.ANY, longAvg(REQ_NANOS));
    call(t, "service_sidecar_internal_resp_latency_nanos", Scope.SERVICE, Side.ANY, longAvg(RESP_NANOS));
    call(t, "service_instance_sidecar_internal_req_latency_nanos", Scope.SERVICE_INSTANCE, Side.ANY,
        longAvg(REQ_NANOS));
    call(t, "service_instance_sidecar_internal_resp_latency_nanos", Scope.SERVICE_INSTANCE, Side.ANY,
        longAvg(RESP_NANOS));
    call(t, "endpoint_sidecar_internal_req_latency_nanos", Scope.ENDPOINT, Side.ANY, longAvg(REQ_NANOS));
    call(t, "endpoint_sidecar_internal_resp_latency_nanos", Scope.ENDPOINT, Side.ANY, longAvg(RESP_NANOS));
    for (Side side : new Side[] {Side.CLIENT, Side.SERVER}) {
      String s = side.name().toLowerCase(Locale.ROOT);
      call(t, "service_" + s + "_sidecar_internal_req_latency_nanos", Scope.SERVICE_RELATION, side, longAvg(REQ_NANOS));
      call(t, "service_" + s + "_sidecar_internal_resp_latency_nanos", Scope.SERVICE_RELATION, side,
          longAvg(RESP_NANOS));
      call(t, "instance_" + s + "_sidecar_internal_req_latency_nanos", Scope.SERVICE_INSTANCE_RELATION, side,
          longAvg(REQ_NANOS));
      call(t, "instance_" + s + "_sidecar_internal_resp_latency_nanos", Scope.SERVICE_INSTANCE_RELATION, side,
          longAvg(RESP_NANOS));
    }

    // TCP throughput (tcp.oal): bytes summed over the bucket.
    flow(t, "service_throughput_received", Scope.SERVICE, Side.ANY, sum(RECEIVED));
    flow(t, "service_throughput_sent", Scope.SERVICE, Side.ANY, sum(SENT));
    flow(t, "service_instance_throughput_received", Scope.SERVICE_INSTANCE, Side.ANY, sum(RECEIVED));
    flow(t, "service_instance_throughput_sent", Scope.SERVICE_INSTANCE, Side.ANY, sum(SENT));
    for (Side side : new Side[] {Side.CLIENT, Side.SERVER}) {
      String s = side.name().toLowerCase(Locale.ROOT);
      flow(t, "service_relation_" + s + "_received", Scope.SERVICE_RELATION, side, sum(RECEIVED));
      flow(t, "service_relation_" + s + "_sent", Scope.SERVICE_RELATION, side, sum(SENT));
      flow(t, "service_instance_relation_" + s + "_received", Scope.SERVICE_INSTANCE_RELATION, side, sum(RECEIVED));
      flow(t, "service_instance_relation_" + s + "_sent", Scope.SERVICE_INSTANCE_RELATION, side, sum(SENT));
    }
    flow(t, "service_relation_server_tcp_mtls_percent", Scope.SERVICE_RELATION, Side.SERVER, percent(MTLS));
    return t;
  }

  private static void call(List<MetricDefinition> t, String name, Scope scope, Side side, AggregateFunction f) {
    t.add(new MetricDefinition(name, Source.CALL, scope, side, f));
  }

  private static void flow(List<MetricDefinition> t, String name, Scope scope, Side side, AggregateFunction f) {
    t.add(new MetricDefinition(name, Source.FLOW, scope, side, f));
  }
}
