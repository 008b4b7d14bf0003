package io.sextant.receiver.ebpf.accesslog;

import static io.sextant.api.config.ConfigKey.bool;
import static io.sextant.api.config.ConfigKey.integer;
import static io.sextant.api.config.ConfigKey.optionalString;
import static io.sextant.api.config.ConfigKey.string;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import io.sextant.receiver.k8s.KubernetesPeerResolver;
import io.sextant.receiver.k8s.ServiceNameRule;
import java.util.List;

/**
 * Configuration of Rover's access log ({@code receiver.ebpf.accessLog.*}): whether it is served,
 * how HTTP endpoints are grouped and bounded, and how a peer Rover names only by IP is found.
 */
public record AccessLogConfig(
    boolean enabled,
    String endpointRules,
    int endpointBudgetPerService,
    int maxServices,
    boolean kubernetes,
    String serviceNameRule,
    int maxPods) {
  private static final String P = "receiver.ebpf.accessLog.";

  public static final List<ConfigKey> KEYS = List.of(
      bool(P + "enabled", true, "serve Rover's eBPF access log (EBPFAccessLogService): the K8S_SERVICE layer"),
      optionalString(P + "endpointRules",
          "endpoint grouping rules, ';'-separated 'regex => name', e.g. 'GET:/users/\\d+ => GET:/users/{id}'"),
      integer(P + "endpointBudgetPerService", 1000, 1, 1_000_000,
          "distinct HTTP endpoints per service; past it requests fold into the '<overflow>' endpoint (counted)"),
      integer(P + "maxServices", 10_000, 1, 10_000_000, "services tracked for endpoint budgets"),
      bool(P + "kubernetes.enabled", false,
          "name a peer Rover reports only by IP from its pod through the Kubernetes API (needs RBAC: list/watch"
              + " pods); without it such a peer is the 'Unknown' service, as in SkyWalking without its registry"),
      string(P + "kubernetes.serviceNameRule", ServiceNameRule.DEFAULT_TEMPLATE, "how a pod found by IP is named"),
      integer(P + "kubernetes.maxPods", KubernetesPeerResolver.DEFAULT_MAX_PODS, 1, 10_000_000, "pods cached by IP"));

  public static AccessLogConfig load(Settings s) {
    return new AccessLogConfig(s.bool(P + "enabled"), s.string(P + "endpointRules"),
        s.integer(P + "endpointBudgetPerService"), s.integer(P + "maxServices"), s.bool(P + "kubernetes.enabled"),
        s.string(P + "kubernetes.serviceNameRule"), s.integer(P + "kubernetes.maxPods"));
  }
}
