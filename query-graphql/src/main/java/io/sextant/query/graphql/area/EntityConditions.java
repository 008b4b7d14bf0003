package io.sextant.query.graphql.area;

import io.sextant.api.id.EntityIds;
import java.util.Map;
import java.util.Set;

/**
 * SkyWalking 10.3's by-name conditions ({@code ServiceCondition}, {@code InstanceCondition},
 * {@code EndpointCondition}) turned into the ids the by-id operations take, as SkyWalking computes
 * them: a service is normal unless its layer names a conjectured (virtual) one.
 */
final class EntityConditions {
  private static final Set<String> CONJECTURED = Set.of("UNDEFINED", "VIRTUAL_DATABASE", "VIRTUAL_MQ",
      "VIRTUAL_GATEWAY");

  private EntityConditions() {}

  static String serviceId(Map<String, Object> service) {
    String name = required(service, "serviceName");
    Object layer = service.get("layer");
    return EntityIds.serviceId(name, layer == null || !CONJECTURED.contains(layer.toString()));
  }

  static String instanceId(Map<String, Object> instance) {
    return EntityIds.instanceId(serviceId(instance), required(instance, "instanceName"));
  }

  static String endpointId(Map<String, Object> endpoint) {
    return EntityIds.endpointId(serviceId(endpoint), required(endpoint, "endpointName"));
  }

  private static String required(Map<String, Object> condition, String key) {
    Object value = condition == null ? null : condition.get(key);
    if (value == null || value.toString().isEmpty()) {
      throw new IllegalArgumentException(key + " is required");
    }
    return value.toString();
  }
}
