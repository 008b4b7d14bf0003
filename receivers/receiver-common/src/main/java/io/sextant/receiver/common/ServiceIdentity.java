package io.sextant.receiver.common;

import java.util.Map;

/**
 * Who a workload is, as the mesh names it: service {@code <name>.<namespace>}, instance = pod name,
 * and properties shown as instance attributes (pod, namespace, ...).
 */
public record ServiceIdentity(String service, String instance, Map<String, String> properties) {}
