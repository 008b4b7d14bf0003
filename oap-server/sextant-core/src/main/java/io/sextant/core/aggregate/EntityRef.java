package io.sextant.core.aggregate;

import io.sextant.api.model.Layer;
import io.sextant.api.model.Scope;
import java.util.Map;

/**
 * Everything the entity registry needs to describe an accumulator's entity: its id, the names
 * behind it, and for relations both ends. Built once per accumulator, not per record; use the
 * named factories.
 *
 * <p>{@code child} is the instance or endpoint; for relations the source side is {@code service}/
 * {@code child} and the destination side {@code dest*}.
 */
public record EntityRef(
    Scope scope,
    String id,
    Layer layer,
    String serviceId,
    String serviceName,
    String childId,
    String childName,
    Map<String, String> attributes,
    String destServiceId,
    String destServiceName,
    String destChildId,
    String destChildName,
    Map<String, String> destAttributes) {

  public static EntityRef service(String serviceId, Layer layer, String serviceName) {
    return new EntityRef(Scope.SERVICE, serviceId, layer, serviceId, serviceName, null, null, Map.of(),
        null, null, null, null, Map.of());
  }

  /** {@code id} is the instance id, or one label value's entity under it ({@code instanceId|label}). */
  public static EntityRef instance(String id, Layer layer, String serviceId, String serviceName, String instanceId,
      String instanceName, Map<String, String> attributes) {
    return new EntityRef(Scope.SERVICE_INSTANCE, id, layer, serviceId, serviceName, instanceId, instanceName,
        attributes, null, null, null, null, Map.of());
  }

  public static EntityRef endpoint(String endpointId, Layer layer, String serviceId, String serviceName,
      String endpointName) {
    return new EntityRef(Scope.ENDPOINT, endpointId, layer, serviceId, serviceName, endpointId, endpointName,
        Map.of(), null, null, null, null, Map.of());
  }

  public static EntityRef serviceRelation(String relationId, Layer layer, String sourceId, String sourceName,
      String destId, String destName) {
    return new EntityRef(Scope.SERVICE_RELATION, relationId, layer, sourceId, sourceName, null, null, Map.of(),
        destId, destName, null, null, Map.of());
  }

  /** {@code source} and {@code dest} are the two instances, each under its service. */
  public static EntityRef instanceRelation(String relationId, Layer layer, Side source, Side dest) {
    return new EntityRef(Scope.SERVICE_INSTANCE_RELATION, relationId, layer, source.serviceId(),
        source.serviceName(), source.instanceId(), source.instanceName(), source.attributes(), dest.serviceId(),
        dest.serviceName(), dest.instanceId(), dest.instanceName(), dest.attributes());
  }

  /** A process (its id in {@code childId}) under the instance that reported it. */
  public static EntityRef process(String id, Layer layer, String serviceId, String serviceName, String processId) {
    return new EntityRef(Scope.PROCESS, id, layer, serviceId, serviceName, processId, null, Map.of(), null, null,
        null, null, Map.of());
  }

  /**
   * A process relation from {@code clientProcessId} ({@code childId}) to {@code serverProcessId}
   * ({@code destChildId}), reported by an instance of {@code serviceId}; the connection's component
   * is the attribute {@code component}.
   */
  public static EntityRef processRelation(String id, Layer layer, String serviceId, String serviceName,
      String clientProcessId, String serverProcessId, String component) {
    return new EntityRef(Scope.PROCESS_RELATION, id, layer, serviceId, serviceName, clientProcessId, null,
        Map.of(COMPONENT, component), null, null, serverProcessId, null, Map.of());
  }

  /** The attribute of a process relation naming its component. */
  public static final String COMPONENT = "component";

  /** One end of an instance relation. */
  public record Side(String serviceId, String serviceName, String instanceId, String instanceName,
      Map<String, String> attributes) {}
}
