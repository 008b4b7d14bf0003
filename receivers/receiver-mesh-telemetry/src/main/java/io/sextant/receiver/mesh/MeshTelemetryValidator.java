package io.sextant.receiver.mesh;

import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.FlowRecord;
import io.sextant.api.model.Layer;
import java.util.List;
import java.util.Map;
import org.apache.skywalking.apm.network.common.v3.KeyStringValuePair;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetric;
import org.apache.skywalking.apm.network.servicemesh.v3.Protocol;
import org.apache.skywalking.apm.network.servicemesh.v3.TCPServiceMeshMetric;

/**
 * Checks one telemetry record and turns it into a normalised record. Every field of the protocol is
 * honoured. Returns either a record or a {@link Rejection}, never throws on bad input.
 */
final class MeshTelemetryValidator {
  /** A single call longer than a day is not a latency, it is a bug in the reporter. */
  private static final int MAX_LATENCY_MILLIS = 86_400_000;

  private final MeshReceiverConfig limits;

  MeshTelemetryValidator(MeshReceiverConfig limits) {
    this.limits = limits;
  }

  Object toCall(HTTPServiceMeshMetric m) {
    Rejection common = checkCommon(m.getDestServiceName(), m.getStartTime(), m.getEndTime(),
        m.getInternalRequestLatencyNanos(), m.getInternalResponseLatencyNanos(), m.getDetectPointValue(),
        m.getSourceInstancePropertiesCount() + m.getDestInstancePropertiesCount(),
        m.getSourceServiceName(), m.getSourceServiceInstance(), m.getDestServiceName(),
        m.getDestServiceInstance(), m.getEndpoint(), m.getTlsMode(), m.getInternalErrorCode());
    if (common != null) {
      return common;
    }
    if (m.getLatency() < 0 || m.getLatency() > MAX_LATENCY_MILLIS) {
      return new Rejection("bad_latency",
          "latency " + m.getLatency() + " ms is outside [0, " + MAX_LATENCY_MILLIS + "]");
    }
    CallProtocol protocol = switch (m.getProtocol()) {
      case HTTP -> CallProtocol.HTTP;
      case gRPC -> CallProtocol.GRPC;
      default -> null;
    };
    if (protocol == null || m.getProtocol() == Protocol.UNRECOGNIZED) {
      return new Rejection("bad_protocol", "unknown protocol " + m.getProtocolValue());
    }
    return new CallRecord(m.getStartTime(), m.getEndTime(), m.getSourceServiceName(), m.getSourceServiceInstance(),
        m.getDestServiceName(), m.getDestServiceInstance(), m.getEndpoint(), m.getLatency(), m.getResponseCode(),
        m.getStatus(), protocol, detectPoint(m.getDetectPointValue()), m.getTlsMode(), m.getInternalErrorCode(),
        m.getInternalRequestLatencyNanos(), m.getInternalResponseLatencyNanos(), Layer.MESH,
        properties(m.getSourceInstancePropertiesList()), properties(m.getDestInstancePropertiesList()));
  }

  Object toFlow(TCPServiceMeshMetric m) {
    Rejection common = checkCommon(m.getDestServiceName(), m.getStartTime(), m.getEndTime(),
        m.getInternalRequestLatencyNanos(), m.getInternalResponseLatencyNanos(), m.getDetectPointValue(),
        m.getSourceInstancePropertiesCount() + m.getDestInstancePropertiesCount(),
        m.getSourceServiceName(), m.getSourceServiceInstance(), m.getDestServiceName(),
        m.getDestServiceInstance(), m.getTlsMode(), m.getInternalErrorCode());
    if (common != null) {
      return common;
    }
    if (m.getReceivedBytes() < 0 || m.getSentBytes() < 0) {
      return new Rejection("negative_bytes", "received/sent bytes must not be negative");
    }
    return new FlowRecord(m.getStartTime(), m.getEndTime(), m.getSourceServiceName(), m.getSourceServiceInstance(),
        m.getDestServiceName(), m.getDestServiceInstance(), detectPoint(m.getDetectPointValue()), m.getTlsMode(),
        m.getInternalErrorCode(), m.getInternalRequestLatencyNanos(), m.getInternalResponseLatencyNanos(),
        m.getReceivedBytes(), m.getSentBytes(), Layer.MESH,
        properties(m.getSourceInstancePropertiesList()), properties(m.getDestInstancePropertiesList()));
  }

  private Rejection checkCommon(String destService, long start, long end, long reqNanos, long respNanos,
      int detectPoint, int propertyCount, String... strings) {
    if (destService.isEmpty()) {
      return new Rejection("missing_dest_service", "destServiceName is required");
    }
    for (String s : strings) {
      if (s.length() > limits.maxStringLength()) {
        return new Rejection("string_too_long", "a name of " + s.length() + " characters exceeds the limit of "
            + limits.maxStringLength());
      }
    }
    if (start < 0 || end < 0) {
      return new Rejection("bad_time", "startTime/endTime must not be negative");
    }
    if (reqNanos < 0 || respNanos < 0) {
      return new Rejection("bad_latency", "internal latencies must not be negative");
    }
    if (detectPoint < 0 || detectPoint > 2) {
      return new Rejection("bad_detect_point", "unknown detectPoint " + detectPoint);
    }
    if (propertyCount > limits.maxProperties()) {
      return new Rejection("too_many_properties", propertyCount + " instance properties exceed the limit of "
          + limits.maxProperties());
    }
    return null;
  }

  private static DetectPoint detectPoint(int value) {
    return switch (value) {
      case 0 -> DetectPoint.CLIENT;
      case 1 -> DetectPoint.SERVER;
      default -> DetectPoint.PROXY;
    };
  }

  private Map<String, String> properties(List<KeyStringValuePair> pairs) {
    return ProtoProperties.of(pairs, limits.maxStringLength());
  }
}
