package io.sextant.receiver.envoy;

import io.sextant.receiver.common.ServiceIdentity;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Names a workload the way SkyWalking does, so switching backends keeps every dashboard and alarm:
 * service = first present of the configured labels (default {@code
 * service.istio.io/canonical-name}, {@code app.kubernetes.io/name}, {@code app}), else the workload
 * name, then {@code .<namespace>}; instance = pod name, as SkyWalking's metadata-exchange analysis
 * names it ({@code ${NAME}}). With Kubernetes instance names on, the instance is {@code
 * <pod>.<namespace>} instead, as SkyWalking's Kubernetes analysis names it, so that a pod named from
 * its metadata and the same pod found by address are one instance.
 */
public final class ServiceNaming {
  public static final List<String> DEFAULT_LABELS =
      List.of("service.istio.io/canonical-name", "app.kubernetes.io/name", "app");

  private final List<String> labels;
  private final boolean kubernetesInstanceNames;

  public ServiceNaming(List<String> labels) {
    this(labels, false);
  }

  public ServiceNaming(List<String> labels, boolean kubernetesInstanceNames) {
    this.labels = List.copyOf(labels);
    this.kubernetesInstanceNames = kubernetesInstanceNames;
  }

  /** The identity of a workload, or empty when it has neither a usable name nor a pod name. */
  public Optional<ServiceIdentity> identify(PeerMetadata.Workload w) {
    String name = null;
    for (String label : labels) {
      String v = w.labels().get(label);
      if (v != null && !v.isEmpty()) {
        name = v;
        break;
      }
    }
    if (name == null && !w.workloadName().isEmpty()) {
      name = w.workloadName();
    }
    if (name == null || w.name().isEmpty()) {
      return Optional.empty();
    }
    String service = w.namespace().isEmpty() ? name : name + "." + w.namespace();
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("pod", w.name());
    if (!w.namespace().isEmpty()) {
      properties.put("namespace", w.namespace());
    }
    String instance = kubernetesInstanceNames && !w.namespace().isEmpty() ? w.name() + "." + w.namespace() : w.name();
    return Optional.of(new ServiceIdentity(service, instance, Map.copyOf(properties)));
  }
}
