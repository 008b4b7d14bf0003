package io.sextant.core.query.mqe;

/**
 * Entity the expression is evaluated for: names, as the GraphQL {@code Entity} input gives them. Any field may be
 * null.
 */
public record MqeEntity(String serviceName, Boolean normal, String serviceInstanceName, String endpointName,
    String processName, String destServiceName, Boolean destNormal, String destServiceInstanceName,
    String destEndpointName, String destProcessName) {
}
