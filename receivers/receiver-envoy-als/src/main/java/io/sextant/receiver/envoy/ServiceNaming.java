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
 * name, then {@code .<namespace>}; instance = pod name.
 */
public final class ServiceNaming {
  public static final List<String> DEFAULT_LABELS =
      List.of("service.istio.io/canonical-name", "app.kubernetes.io/name", "app");

  private final List<String> labels;

  public ServiceNaming(List<String> labels) {
    this.labels = List.copyOf(labels);
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
    return Optional.of(new ServiceIdentity(service, w.name(), Map.copyOf(properties)));
  }
}
