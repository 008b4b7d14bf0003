package io.sextant.core.query.mqe;

/**
 * The entity a ranked value belongs to, as SkyWalking 10.2's {@code Owner}: {@code scope} is the
 * query protocol's scope name ({@code Service}, {@code ServiceInstance}, {@code Endpoint}); the
 * instance or endpoint fields are null for a service. booster-ui 10.2+ links a top list's rows to
 * the entity's dashboard with it.
 */
public record MqeOwner(String scope, String serviceId, String serviceName, boolean normal, String instanceId,
    String instanceName, String endpointId, String endpointName) {}
