package io.sextant.api.model;

import java.util.Map;

/**
 * One L7 call (HTTP or gRPC), normalised from any source (mesh telemetry, Envoy ALS, eBPF).
 *
 * <p>An empty {@code sourceService} means the caller is unknown: no relation is produced.
 */
public record CallRecord(
    long startTimeMillis,
    long endTimeMillis,
    String sourceService,
    String sourceInstance,
    String destService,
    String destInstance,
    String endpoint,
    int latencyMillis,
    int responseCode,
    boolean success,
    CallProtocol protocol,
    DetectPoint detectPoint,
    String tlsMode,
    String internalErrorCode,
    long internalRequestLatencyNanos,
    long internalResponseLatencyNanos,
    Layer layer,
    Map<String, String> sourceInstanceProperties,
    Map<String, String> destInstanceProperties)
    implements MeshRecord {}
