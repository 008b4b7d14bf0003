package io.sextant.core.aggregate;

import io.sextant.api.model.Layer;
import io.sextant.core.metric.Scope;
import java.util.Map;

/**
 * Everything the flusher needs to register an accumulator's entity: its id, the names behind it,
 * and for relations both ends. Built once per accumulator, not per record.
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
    Map<String, String> destAttributes) {}
