package io.sextant.receiver.ebpf.trace;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sextant.api.ebpf.ProcessIds;
import io.sextant.api.ebpf.SampledTraceReason;
import io.sextant.api.id.EntityIds;
import io.sextant.api.model.DetectPoint;
import java.util.Locale;
import org.apache.skywalking.apm.network.common.v3.KeyStringValuePair;
import org.apache.skywalking.apm.network.logging.v3.LogData;

/**
 * Reads one log of {@code LogReportService/collect} as SkyWalking 10.1's LAL rule
 * {@code network-profiling-slow-trace} (lal/k8s-service.yaml, mesh-dp.yaml) reads Rover's: a log
 * tagged {@code LOG_KIND=NET_PROFILING_SAMPLED_TRACE} whose JSON body (Rover's
 * {@code SamplingTraceLogBody}) gives the URI, reason, latency, detect point, protocol and both
 * processes. A side without a process id is the instance's virtual process: {@code UNKNOWN_LOCAL}
 * when Rover says it is local, else {@code UNKNOWN_REMOTE} (SkyWalking names it from Kubernetes by
 * address when it can; Sextant does not). Any other log is {@link Outcome.NotSampledTrace}.
 */
final class SampledTraceParser {
  static final String LOG_KIND = "LOG_KIND";
  static final String SAMPLED_TRACE = "NET_PROFILING_SAMPLED_TRACE";
  /** Rover's body is a few hundred bytes plus the URI; anything far larger is not Rover's. */
  static final int MAX_BODY_CHARS = 65_536;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What a log is. */
  sealed interface Outcome {
    record Sample(SampledTrace trace) implements Outcome {}

    record NotSampledTrace() implements Outcome {}

    /** A sampled trace that cannot be kept: a stable reason tag for metrics and a detail for people. */
    record Refused(String reason, String detail) implements Outcome {}
  }

  private static final class Refusal extends Exception {
    private final String reason;

    Refusal(String reason, String detail) {
      super(detail, null, false, false);
      this.reason = reason;
    }
  }

  private final int maxStringLength;

  SampledTraceParser(int maxStringLength) {
    this.maxStringLength = maxStringLength;
  }

  static boolean isSampledTrace(LogData log) {
    for (KeyStringValuePair tag : log.getTags().getDataList()) {
      if (LOG_KIND.equals(tag.getKey())) {
        return SAMPLED_TRACE.equals(tag.getValue());
      }
    }
    return false;
  }

  Outcome parse(LogData log, long receivedMillis) {
    if (!isSampledTrace(log)) {
      return new Outcome.NotSampledTrace();
    }
    try {
      return new Outcome.Sample(sample(log, receivedMillis));
    } catch (Refusal r) {
      return new Outcome.Refused(r.reason, r.getMessage());
    }
  }

  private SampledTrace sample(LogData log, long receivedMillis) throws Refusal {
    String service = required(log.getService(), "missing_service", "service");
    String instance = required(log.getServiceInstance(), "missing_instance", "serviceInstance");
    String traceId = required(log.getTraceContext().getTraceId(), "missing_trace_id", "traceContext.traceId");
    String segmentId = bounded(log.getTraceContext().getTraceSegmentId(), "traceContext.traceSegmentId");
    bounded(log.getLayer(), "layer");
    if (log.getTimestamp() < 0) {
      throw new Refusal("bad_timestamp", "timestamp must not be negative, was " + log.getTimestamp());
    }
    JsonNode body = body(log);
    String uri = required(text(body, "uri"), "missing_uri", "body.uri");
    String reasonText = text(body, "reason");
    SampledTraceReason reason = SampledTraceReason.fromRover(reasonText);
    if (reason == null) {
      throw new Refusal("bad_reason", "body.reason must be slow, status_4xx or status_5xx, was '" + reasonText + "'");
    }
    JsonNode latency = body.get("latency");
    if (latency == null || !latency.canConvertToLong() || !latency.isIntegralNumber() || latency.asLong() < 0) {
      throw new Refusal("bad_latency", "body.latency must be a whole number of milliseconds >= 0, was " + latency);
    }
    DetectPoint detectPoint = detectPoint(text(body, "detect_point"));
    String instanceId = EntityIds.instanceId(EntityIds.serviceId(service, true), instance);
    String source = processId(body.get("client_process"), "client_process", instanceId);
    String dest = processId(body.get("server_process"), "server_process", instanceId);
    JsonNode status = body.get("status");
    return new SampledTrace(reason, source, dest, detectPoint,
        componentId(text(body, "component"), body.path("ssl").asBoolean(false)), latency.asLong(), uri, traceId,
        segmentId, log.getTraceContext().getSpanId(),
        log.getTimestamp() > 0 ? log.getTimestamp() : receivedMillis, service, instance, log.getLayer(),
        status != null && status.canConvertToInt() ? status.asInt() : 0);
  }

  private JsonNode body(LogData log) throws Refusal {
    if (!log.getBody().hasJson()) {
      throw new Refusal("bad_body", "the body of a sampled trace must be JSON (body.json), as Rover sends it");
    }
    String json = log.getBody().getJson().getJson();
    if (json.length() > MAX_BODY_CHARS) {
      throw new Refusal("body_too_long", "body.json is longer than " + MAX_BODY_CHARS + " characters");
    }
    try {
      JsonNode body = JSON.readTree(json);
      if (body == null || !body.isObject()) {
        throw new Refusal("bad_body", "body.json must be a JSON object");
      }
      return body;
    } catch (JacksonException e) {
      throw new Refusal("bad_body", "body.json is not JSON: " + e.getOriginalMessage());
    }
  }

  /** As SkyWalking's LAL rule: the side's process id, else the instance's local or remote virtual process. */
  private String processId(JsonNode side, String field, String instanceId) throws Refusal {
    if (side == null || !side.isObject()) {
      throw new Refusal("missing_process", "body." + field + " must name the process (process_id, local or address)");
    }
    String id = bounded(text(side, "process_id"), "body." + field + ".process_id");
    if (!id.isEmpty()) {
      return id;
    }
    bounded(text(side, "address"), "body." + field + ".address");
    return ProcessIds.processId(instanceId,
        side.path("local").asBoolean(false) ? ProcessIds.VIRTUAL_LOCAL : ProcessIds.VIRTUAL_REMOTE);
  }

  private static DetectPoint detectPoint(String text) throws Refusal {
    try {
      return DetectPoint.valueOf(text.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new Refusal("bad_detect_point", "body.detect_point must be client, server or proxy, was '" + text + "'");
    }
  }

  /** SkyWalking's component ids, as its LAL rule picks them: http 49, https 129, tls 130, tcp 110. */
  static int componentId(String protocol, boolean ssl) {
    boolean http = "http".equals(protocol);
    return http ? (ssl ? 129 : 49) : (ssl ? 130 : 110);
  }

  private String required(String value, String reason, String field) throws Refusal {
    if (value.isEmpty()) {
      throw new Refusal(reason, field + " is required in a sampled trace");
    }
    return bounded(value, field);
  }

  private String bounded(String value, String field) throws Refusal {
    if (value.length() > maxStringLength) {
      throw new Refusal("string_too_long", field + " is longer than " + maxStringLength + " characters");
    }
    return value;
  }

  private static String text(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v == null || v.isNull() ? "" : v.asText();
  }
}
