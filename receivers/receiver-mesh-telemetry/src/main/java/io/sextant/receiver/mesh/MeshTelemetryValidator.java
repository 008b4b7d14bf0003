package io.sextant.receiver.mesh;

import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.FlowRecord;
import io.sextant.api.model.Layer;
import io.sextant.receiver.common.Rejection;

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

  Object toCall(WireMetric m) {
    Rejection common = checkCommon(m, m.endpoint);
    if (common != null) {
      return common;
    }
    if (m.latency < 0 || m.latency > MAX_LATENCY_MILLIS) {
      return new Rejection("bad_latency",
          "latency " + m.latency + " ms is outside [0, " + MAX_LATENCY_MILLIS + "]");
    }
    CallProtocol protocol = switch (m.protocol) {
      case 0 -> CallProtocol.HTTP;
      case 1 -> CallProtocol.GRPC;
      default -> null;
    };
    if (protocol == null) {
      return new Rejection("bad_protocol", "unknown protocol " + m.protocol);
    }
    return new CallRecord(m.startTime, m.endTime, m.sourceServiceName, m.sourceServiceInstance,
        m.destServiceName, m.destServiceInstance, m.endpoint, m.latency, m.responseCode,
        m.status, protocol, detectPoint(m.detectPoint), m.tlsMode, m.internalErrorCode,
        m.internalRequestLatencyNanos, m.internalResponseLatencyNanos, Layer.MESH,
        m.sourceProperties, m.destProperties);
  }

  Object toFlow(WireMetric m) {
    Rejection common = checkCommon(m, "");
    if (common != null) {
      return common;
    }
    if (m.receivedBytes < 0 || m.sentBytes < 0) {
      return new Rejection("negative_bytes", "received/sent bytes must not be negative");
    }
    return new FlowRecord(m.startTime, m.endTime, m.sourceServiceName, m.sourceServiceInstance,
        m.destServiceName, m.destServiceInstance, detectPoint(m.detectPoint), m.tlsMode,
        m.internalErrorCode, m.internalRequestLatencyNanos, m.internalResponseLatencyNanos,
        m.receivedBytes, m.sentBytes, Layer.MESH, m.sourceProperties, m.destProperties);
  }

  private Rejection checkCommon(WireMetric m, String endpoint) {
    if (m.destServiceName.isEmpty()) {
      return new Rejection("missing_dest_service", "destServiceName is required");
    }
    int longest = Math.max(Math.max(Math.max(m.sourceServiceName.length(), m.sourceServiceInstance.length()),
        Math.max(m.destServiceName.length(), m.destServiceInstance.length())),
        Math.max(endpoint.length(), Math.max(m.tlsMode.length(), m.internalErrorCode.length())));
    if (longest > limits.maxStringLength()) {
      return new Rejection("string_too_long", "a name of " + longest + " characters exceeds the limit of "
          + limits.maxStringLength());
    }
    if (m.startTime < 0 || m.endTime < 0) {
      return new Rejection("bad_time", "startTime/endTime must not be negative");
    }
    if (m.internalRequestLatencyNanos < 0 || m.internalResponseLatencyNanos < 0) {
      return new Rejection("bad_latency", "internal latencies must not be negative");
    }
    if (m.detectPoint < 0 || m.detectPoint > 2) {
      return new Rejection("bad_detect_point", "unknown detectPoint " + m.detectPoint);
    }
    int propertyCount = m.sourcePropertyCount + m.destPropertyCount;
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
}
