package io.sextant.api.model;

import java.util.Map;

/** One L4 connection summary (TCP), normalised from any source. Bytes are as seen by the reporter. */
public record FlowRecord(
    long startTimeMillis,
    long endTimeMillis,
    String sourceService,
    String sourceInstance,
    String destService,
    String destInstance,
    DetectPoint detectPoint,
    String tlsMode,
    String internalErrorCode,
    long internalRequestLatencyNanos,
    long internalResponseLatencyNanos,
    long receivedBytes,
    long sentBytes,
    Layer layer,
    Map<String, String> sourceInstanceProperties,
    Map<String, String> destInstanceProperties)
    implements MeshRecord {}
