package io.sextant.api.storage;

import java.util.Set;

/** A service as first and last seen (minute buckets), with every layer it was seen in. */
public record ServiceMeta(
    String id, String name, boolean normal, Set<String> layers, long firstSeen, long lastSeen) {}
