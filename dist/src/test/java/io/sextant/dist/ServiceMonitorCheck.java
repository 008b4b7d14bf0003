package io.sextant.dist;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The Prometheus Operator's ServiceMonitor is a CRD whose model is not in the local Maven
 * repository; its fields used by the chart are checked against the CRD's (monitoring.coreos.com/v1)
 * field names instead, unknown ones refused like the typed manifests.
 */
final class ServiceMonitorCheck {
  private static final Set<String> TOP = Set.of("apiVersion", "kind", "metadata", "spec");
  private static final Set<String> METADATA = Set.of("name", "namespace", "labels", "annotations");
  private static final Set<String> SPEC = Set.of("selector", "endpoints", "namespaceSelector", "jobLabel",
      "targetLabels", "podTargetLabels", "sampleLimit");
  private static final Set<String> ENDPOINT = Set.of("port", "targetPort", "path", "scheme", "interval",
      "scrapeTimeout", "params", "honorLabels", "honorTimestamps", "relabelings", "metricRelabelings", "tlsConfig",
      "bearerTokenSecret", "basicAuth", "authorization", "oauth2", "followRedirects", "enableHttp2",
      "proxyUrl");

  private ServiceMonitorCheck() {}

  static void check(JsonNode doc) {
    List<String> unknown = new ArrayList<>();
    only(doc, TOP, "", unknown);
    only(doc.path("metadata"), METADATA, "metadata.", unknown);
    only(doc.path("spec"), SPEC, "spec.", unknown);
    only(doc.path("spec").path("selector"), Set.of("matchLabels", "matchExpressions"), "spec.selector.", unknown);
    JsonNode endpoints = doc.path("spec").path("endpoints");
    if (!endpoints.isArray() || endpoints.isEmpty()) {
      unknown.add("spec.endpoints must be a non-empty list");
    }
    for (JsonNode e : endpoints) {
      only(e, ENDPOINT, "spec.endpoints[].", unknown);
    }
    if (!unknown.isEmpty()) {
      throw new AssertionError("ServiceMonitor: " + unknown);
    }
  }

  private static void only(JsonNode node, Set<String> allowed, String prefix, List<String> out) {
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!allowed.contains(f)) {
        out.add("unknown field " + prefix + f);
      }
    }
  }
}
