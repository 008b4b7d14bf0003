package io.sextant.api.storage;

/** An endpoint of a service. */
public record EndpointMeta(String id, String serviceId, String name, long firstSeen, long lastSeen) {}
