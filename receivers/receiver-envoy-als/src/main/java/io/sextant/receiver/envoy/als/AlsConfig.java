package io.sextant.receiver.envoy.als;

import static io.sextant.api.config.ConfigKey.bool;
import static io.sextant.api.config.ConfigKey.integer;
import static io.sextant.api.config.ConfigKey.string;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import io.sextant.receiver.common.EndpointNamer;
import io.sextant.receiver.envoy.ServiceNaming;
import io.sextant.receiver.k8s.KubernetesPeerResolver;
import io.sextant.receiver.k8s.KubernetesPeers;
import io.sextant.receiver.k8s.ServiceNameRule;
import java.util.ArrayList;
import java.util.List;

/**
 * Configuration of the ALS receiver ({@code receiver.als.*}): naming labels, endpoint grouping
 * rules and budgets, the longest name accepted, and Kubernetes pod-IP resolution.
 */
public record AlsConfig(
    List<String> serviceNameLabels,
    String endpointRules,
    int endpointBudgetPerService,
    int maxServices,
    int maxStringLength,
    Kubernetes kubernetes,
    ErrorLogs errorLogs) {

  /** Failed requests kept as logs (docs/istio.md#failed-requests-as-logs). */
  public record ErrorLogs(int perServicePerMinute, int successPerServicePerMinute, int maxPending) {}

  /** Resolution by pod IP of proxies without Istio node metadata and of peers without metadata exchange. */
  public record Kubernetes(boolean enabled, String serviceNameRule, int maxPods) {
    public static final Kubernetes DISABLED =
        new Kubernetes(false, ServiceNameRule.DEFAULT_TEMPLATE, KubernetesPeerResolver.DEFAULT_MAX_PODS);
  }

  private static final String P = "receiver.als.";

  public static final List<ConfigKey> KEYS = keys();

  private static List<ConfigKey> keys() {
    List<ConfigKey> keys = new ArrayList<>(List.of(
        bool(P + "enabled", true,
            "serve envoy.service.accesslog.v3.AccessLogService and Satellite's SatelliteAccessLogService"),
        string(P + "serviceNameLabels", String.join(",", ServiceNaming.DEFAULT_LABELS),
            "pod labels naming a service, first present wins (then the workload name), + '.<namespace>'")));
    keys.addAll(EndpointNamer.keys(P, "GET:/reviews/\\d+ => GET:/reviews/{id}"));
    keys.add(integer(P + "maxStringLength", 512, 16, 65536, "longest request path accepted"));
    keys.addAll(KubernetesPeers.keys(P + "kubernetes.",
        "find proxies without Istio node metadata and peers without metadata exchange by pod IP through the"
            + " Kubernetes API (needs RBAC: list/watch pods); instances are then named <pod>.<namespace>"));
    keys.add(integer(P + "errorLogs.perServicePerMinute", 600, 0, 1_000_000,
        "failed requests (status >= 400 or an Envoy response flag) kept as logs per service per minute, a fifth"
            + " of it per status code or flag set; past it they are counted, not kept; 0: no error logs"));
    keys.add(integer(P + "errorLogs.successPerServicePerMinute", 0, 0, 1_000_000,
        "successful requests kept as logs per service per minute beside the failed ones (a sample); 0: none"));
    keys.add(integer(P + "errorLogs.maxPending", 10_000, 1, 1_000_000,
        "logs waiting to be written (while storage is slow or away); past it they are counted, not kept"));
    return List.copyOf(keys);
  }

  public static AlsConfig load(Settings s) {
    return new AlsConfig(s.list(P + "serviceNameLabels"), s.string(P + "endpointRules"),
        s.integer(P + "endpointBudgetPerService"), s.integer(P + "maxServices"), s.integer(P + "maxStringLength"),
        new Kubernetes(s.bool(P + "kubernetes.enabled"), s.string(P + "kubernetes.serviceNameRule"),
            s.integer(P + "kubernetes.maxPods")),
        new ErrorLogs(s.integer(P + "errorLogs.perServicePerMinute"),
            s.integer(P + "errorLogs.successPerServicePerMinute"), s.integer(P + "errorLogs.maxPending")));
  }
}
