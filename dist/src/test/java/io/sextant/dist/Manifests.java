package io.sextant.dist;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Rendered manifests parsed strictly into fabric8's Kubernetes API model: each document's
 * apiVersion/kind must be one the chart is meant to produce, every field must exist in that API
 * version with the right type, and a misspelt or misplaced field fails. fabric8 keeps unknown
 * fields in {@code additionalProperties} rather than refusing them, so the parsed tree is walked
 * and any non-empty one is reported with its path.
 */
final class Manifests {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final ObjectReader STRICT = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
      .reader();

  /** The API types the chart renders. */
  private static final Map<String, Class<? extends HasMetadata>> TYPES = Map.ofEntries(
      Map.entry("v1/ConfigMap", ConfigMap.class),
      Map.entry("v1/Secret", Secret.class),
      Map.entry("v1/Service", Service.class),
      Map.entry("v1/ServiceAccount", ServiceAccount.class),
      Map.entry("apps/v1/Deployment", Deployment.class),
      Map.entry("apps/v1/StatefulSet", StatefulSet.class),
      Map.entry("autoscaling/v2/HorizontalPodAutoscaler", HorizontalPodAutoscaler.class),
      Map.entry("policy/v1/PodDisruptionBudget", PodDisruptionBudget.class),
      Map.entry("networking.k8s.io/v1/Ingress", Ingress.class),
      Map.entry("networking.k8s.io/v1/NetworkPolicy", NetworkPolicy.class),
      Map.entry("rbac.authorization.k8s.io/v1/ClusterRole", ClusterRole.class),
      Map.entry("rbac.authorization.k8s.io/v1/ClusterRoleBinding", ClusterRoleBinding.class));

  /** A Prometheus Operator CRD: its model is not in the local repository, see {@link ServiceMonitorCheck}. */
  static final String SERVICE_MONITOR = "monitoring.coreos.com/v1/ServiceMonitor";

  private final List<HasMetadata> objects;
  private final List<JsonNode> serviceMonitors;

  private Manifests(List<HasMetadata> objects, List<JsonNode> serviceMonitors) {
    this.objects = objects;
    this.serviceMonitors = serviceMonitors;
  }

  static Manifests parse(String rendered) {
    List<HasMetadata> objects = new ArrayList<>();
    List<JsonNode> monitors = new ArrayList<>();
    try {
      for (JsonNode doc : YAML.readerFor(JsonNode.class).<JsonNode>readValues(rendered).readAll()) {
        if (doc == null || doc.isNull() || doc.isEmpty()) {
          continue;
        }
        String type = doc.path("apiVersion").asText() + "/" + doc.path("kind").asText();
        if (type.equals(SERVICE_MONITOR)) {
          ServiceMonitorCheck.check(doc);
          monitors.add(doc);
          continue;
        }
        Class<? extends HasMetadata> cls = TYPES.get(type);
        if (cls == null) {
          throw new AssertionError("unexpected manifest type " + type + ":\n" + doc.toPrettyString());
        }
        HasMetadata parsed;
        try {
          parsed = STRICT.treeToValue(doc, cls);
        } catch (IOException e) {
          throw new AssertionError(type + " " + doc.path("metadata").path("name").asText()
              + " does not fit the Kubernetes API: " + e.getMessage(), e);
        }
        List<String> unknown = new ArrayList<>();
        unknownFields(parsed, type + "(" + parsed.getMetadata().getName() + ")", unknown,
            java.util.Collections.newSetFromMap(new IdentityHashMap<>()));
        if (!unknown.isEmpty()) {
          throw new AssertionError("fields the Kubernetes API does not know: " + unknown);
        }
        objects.add(parsed);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("rendered output is not YAML", e);
    }
    return new Manifests(objects, monitors);
  }

  /** Walks the model's getters; any non-empty additionalProperties is a field the schema lacks. */
  private static void unknownFields(Object o, String path, List<String> out, Set<Object> seen) {
    if (o == null || !o.getClass().getName().startsWith("io.fabric8.") || !seen.add(o)) {
      return;
    }
    for (Method m : o.getClass().getMethods()) {
      if (m.getParameterCount() != 0 || Modifier.isStatic(m.getModifiers()) || !m.getName().startsWith("get")
          || m.getDeclaringClass() == Object.class) {
        continue;
      }
      Object value;
      try {
        value = m.invoke(o);
      } catch (IllegalAccessException | InvocationTargetException e) {
        continue;
      }
      String field = path + "." + decapitalize(m.getName().substring(3));
      if (m.getName().equals("getAdditionalProperties") && value instanceof Map<?, ?> extra) {
        if (!extra.isEmpty()) {
          out.add(path + " " + extra.keySet());
        }
      } else if (value instanceof Collection<?> list) {
        int i = 0;
        for (Object item : list) {
          unknownFields(item, field + "[" + i++ + "]", out, seen);
        }
      } else if (value instanceof Map<?, ?> map) {
        map.forEach((k, v) -> unknownFields(v, field + "[" + k + "]", out, seen));
      } else {
        unknownFields(value, field, out, seen);
      }
    }
  }

  private static String decapitalize(String s) {
    return s.isEmpty() ? s : Character.toLowerCase(s.charAt(0)) + s.substring(1);
  }

  List<HasMetadata> all() {
    return objects;
  }

  List<JsonNode> serviceMonitors() {
    return serviceMonitors;
  }

  <T extends HasMetadata> List<T> of(Class<T> type) {
    return objects.stream().filter(type::isInstance).map(type::cast).toList();
  }

  <T extends HasMetadata> T one(Class<T> type) {
    List<T> found = of(type);
    if (found.size() != 1) {
      throw new AssertionError("expected one " + type.getSimpleName() + ", found " + found.size());
    }
    return found.get(0);
  }

  Service service(String name) {
    return of(Service.class).stream().filter(s -> s.getMetadata().getName().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no Service " + name));
  }
}
