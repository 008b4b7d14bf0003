package io.sextant.receiver.ebpf.trace;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sextant.api.ebpf.ProcessIds;
import io.sextant.api.ebpf.SampledTraceReason;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.storage.SampledRecordTags;
import io.sextant.api.storage.StoredRecord;
import java.nio.charset.StandardCharsets;

/**
 * One HTTP request Rover sampled during network profiling, with the fields of SkyWalking's
 * sampled-trace records: the process relation it went over (client process - server process), the
 * reason, latency in ms, URI, trace, detect point, component and time, plus where it came from.
 */
record SampledTrace(SampledTraceReason reason, String sourceProcessId, String destProcessId,
    DetectPoint detectPoint, int componentId, long latencyMillis, String uri, String traceId,
    String traceSegmentId, int spanId, long timestampMillis, String service, String serviceInstance, String layer,
    int status) {
  private static final ObjectMapper JSON = new ObjectMapper();

  String relationId() {
    return ProcessIds.relationId(sourceProcessId, destProcessId);
  }

  /**
   * The record as the record queries read it: kind = the reason's record name, entity = the process
   * relation, tags name (URI), value (latency) and refId (trace). Its id is SkyWalking's storage id
   * (second, relation, trace), so the same sample sent twice is kept once.
   */
  StoredRecord toRecord() {
    String id = timestampMillis / 1000 + "_" + relationId() + "_" + traceId;
    return new StoredRecord(reason.recordName(), id, relationId(), timestampMillis,
        SampledRecordTags.of(uri, latencyMillis, traceId), body());
  }

  private byte[] body() {
    ObjectNode b = JSON.createObjectNode();
    b.put("reason", reason.name());
    b.put("uri", uri);
    b.put("latency", latencyMillis);
    b.put("traceId", traceId);
    b.put("traceSegmentId", traceSegmentId);
    b.put("spanId", spanId);
    b.put("sourceProcessId", sourceProcessId);
    b.put("destProcessId", destProcessId);
    b.put("detectPoint", detectPoint.name());
    b.put("componentId", componentId);
    b.put("status", status);
    b.put("timestamp", timestampMillis);
    b.put("service", service);
    b.put("serviceInstance", serviceInstance);
    b.put("layer", layer);
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }
}
