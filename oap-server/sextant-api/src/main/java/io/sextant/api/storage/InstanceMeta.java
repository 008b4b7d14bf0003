package io.sextant.api.storage;

import java.util.Map;

/** A service instance, with the attributes its reporter gave. */
public record InstanceMeta(
    String id,
    String serviceId,
    String name,
    String layer,
    Map<String, String> attributes,
    long firstSeen,
    long lastSeen) {}
