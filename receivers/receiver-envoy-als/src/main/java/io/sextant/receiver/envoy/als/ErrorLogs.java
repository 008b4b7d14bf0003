package io.sextant.receiver.envoy.als;

import com.google.protobuf.Duration;
import com.google.protobuf.Timestamp;
import io.envoyproxy.envoy.data.accesslog.v3.AccessLogCommon;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPAccessLogEntry;
import io.envoyproxy.envoy.data.accesslog.v3.TCPAccessLogEntry;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.log.LogEntry;
import io.sextant.api.log.LogRecords;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.FlowRecord;
import io.sextant.api.storage.StoredRecord;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Envoy's failed requests as logs, so that behind a dashboard's 5xx a user can read which requests
 * failed and why. As SkyWalking's envoy-als rule: an HTTP entry with a response code of 400 or more
 * or any response flag, and (beyond it) a TCP connection with a response flag; the log is the
 * reporting proxy's (its service and instance, and for the server side the endpoint). Its content is
 * a JSON summary of what a person debugs with: status, flags and their meaning, Envoy's response
 * code details, upstream cluster and host, durations, bytes, TLS, the request id and the trace
 * headers Envoy was told to log ({@code traceparent}, {@code sw8}, {@code b3}) to jump to a trace.
 * Its {@code level} tag (ERROR for a 5xx or a flag, WARN for a 4xx, INFO for a sampled success; not
 * in SkyWalking's rule) colours booster-ui's rows and fills Horizon's level filter.
 *
 * <p>Bounded per service per minute ({@code perServicePerMinute}), and within a service per class
 * (the flags, else the status code) at a fifth of it, so that a storm of 404s does not hide the
 * 503s with {@code UF}; what is over the bound is counted ({@code rate_limited}), not queued.
 * Successful requests are kept too, up to {@code successPerServicePerMinute} (0: none).
 */
final class ErrorLogs {
  /** A header or detail longer than this is cut, so a log stays small. */
  private static final int MAX_VALUE_CHARS = 1024;
  /** Budget entries kept per minute for each service the receiver tracks: its own and its classes'. */
  private static final int MAX_KEYS_PER_SERVICE = 8;
  private static final List<String> TRACE_HEADERS = List.of("traceparent", "sw8", "b3", "x-b3-traceid");

  private final int perServicePerMinute;
  private final int perClassPerMinute;
  private final int successPerServicePerMinute;
  private final int maxServices;
  private final Consumer<StoredRecord> out;
  private final Counter rateLimited;
  /** (service or service|class) → logs kept in {@link #minute}. */
  private final Map<String, int[]> kept = new HashMap<>();
  private long minute = -1;

  ErrorLogs(int perServicePerMinute, int successPerServicePerMinute, int maxServices, Consumer<StoredRecord> out,
      MeterRegistry registry) {
    this.perServicePerMinute = perServicePerMinute;
    this.perClassPerMinute = Math.max(1, perServicePerMinute / 5);
    this.successPerServicePerMinute = successPerServicePerMinute;
    this.maxServices = maxServices;
    this.out = out;
    this.rateLimited = LogWriter.outcome(registry, "rate_limited");
  }

  /** Considers an HTTP entry the converter attributed as {@code records}; {@code nodeId} its proxy's. */
  void http(HTTPAccessLogEntry e, List<CallRecord> records, String nodeId) {
    if (records.isEmpty() || perServicePerMinute == 0 && successPerServicePerMinute == 0) {
      return;
    }
    CallRecord own = ownSide(records);
    int code = e.getResponse().hasResponseCode() ? e.getResponse().getResponseCode().getValue() : 0;
    String flags = own.internalErrorCode();
    boolean failed = code >= 400 || !flags.isEmpty();
    if (!failed && successPerServicePerMinute == 0) {
      return;
    }
    String service = own.detectPoint() == DetectPoint.SERVER ? own.destService() : own.sourceService();
    if (!admit(service, failed, flags.isEmpty() ? String.valueOf(code) : flags)) {
      return;
    }
    AccessLogCommon c = e.getCommonProperties();
    Json j = new Json();
    j.put("side", own.detectPoint() == DetectPoint.SERVER ? "server" : "client");
    j.put("method", e.getRequest().getRequestMethod().name());
    j.put("authority", e.getRequest().getAuthority());
    j.put("path", e.getRequest().getPath());
    if (code > 0) {
      j.put("status", code);
    }
    common(j, c, flags, own.detectPoint() == DetectPoint.SERVER ? own.sourceService() : own.destService(),
        own.tlsMode());
    j.put("responseCodeDetails", e.getResponse().getResponseCodeDetails());
    j.put("requestId", e.getRequest().getRequestId());
    j.put("userAgent", e.getRequest().getUserAgent());
    j.put("requestBytes", e.getRequest().getRequestHeadersBytes() + e.getRequest().getRequestBodyBytes());
    j.put("responseBytes", e.getResponse().getResponseHeadersBytes() + e.getResponse().getResponseBodyBytes());
    Map<String, String> headers = e.getRequest().getRequestHeadersMap();
    for (String h : TRACE_HEADERS) {
      j.put(h, headers.getOrDefault(h, ""));
    }
    List<LogEntry.Tag> tags = new ArrayList<>(3);
    tags.add(new LogEntry.Tag(LogRecords.LEVEL, code >= 500 || !flags.isEmpty() ? "ERROR" : failed ? "WARN" : "INFO"));
    if (code > 0) {
      tags.add(new LogEntry.Tag(LogRecords.STATUS_CODE, String.valueOf(code)));
    }
    if (!flags.isEmpty()) {
      tags.add(new LogEntry.Tag(LogRecords.RESPONSE_FLAG, flags));
    }
    String instance = own.detectPoint() == DetectPoint.SERVER ? own.destInstance() : own.sourceInstance();
    String endpoint = own.detectPoint() == DetectPoint.SERVER ? own.endpoint() : "";
    emit(nodeId, e.toByteArray(), new LogEntry(service, instance, endpoint, own.endTimeMillis(), "JSON",
        j.toString(), tags));
  }

  /** Considers a TCP entry: a connection with a response flag failed (TCP has no status code). */
  void tcp(TCPAccessLogEntry e, List<FlowRecord> records, String nodeId) {
    if (records.isEmpty() || perServicePerMinute == 0 && successPerServicePerMinute == 0) {
      return;
    }
    FlowRecord own = records.stream().filter(r -> r.detectPoint() == DetectPoint.SERVER).findFirst()
        .orElse(records.get(0));
    String flags = own.internalErrorCode();
    if (flags.isEmpty() && successPerServicePerMinute == 0) {
      return;
    }
    String service = own.detectPoint() == DetectPoint.SERVER ? own.destService() : own.sourceService();
    if (!admit(service, !flags.isEmpty(), flags.isEmpty() ? "tcp" : flags)) {
      return;
    }
    Json j = new Json();
    j.put("side", own.detectPoint() == DetectPoint.SERVER ? "server" : "client");
    j.put("protocol", "tcp");
    common(j, e.getCommonProperties(), flags,
        own.detectPoint() == DetectPoint.SERVER ? own.sourceService() : own.destService(), own.tlsMode());
    j.put("receivedBytes", own.receivedBytes());
    j.put("sentBytes", own.sentBytes());
    List<LogEntry.Tag> tags = flags.isEmpty() ? List.of(new LogEntry.Tag(LogRecords.LEVEL, "INFO"))
        : List.of(new LogEntry.Tag(LogRecords.LEVEL, "ERROR"), new LogEntry.Tag(LogRecords.RESPONSE_FLAG, flags));
    String instance = own.detectPoint() == DetectPoint.SERVER ? own.destInstance() : own.sourceInstance();
    emit(nodeId, e.toByteArray(), new LogEntry(service, instance, "", own.endTimeMillis(), "JSON", j.toString(),
        tags));
  }

  /** What both protocols log of an entry's common properties. */
  private static void common(Json j, AccessLogCommon c, String flags, String peer, String tls) {
    j.put("peer", peer);
    if (!flags.isEmpty()) {
      j.put("responseFlags", flags);
      j.put("responseFlagMeanings", ResponseFlagMeanings.of(flags));
    }
    j.put("upstreamCluster", c.getUpstreamCluster());
    j.put("upstreamHost", AccessLogConverter.ip(c.getUpstreamRemoteAddress()));
    j.put("upstreamTransportFailureReason", c.getUpstreamTransportFailureReason());
    j.put("downstreamRemote", AccessLogConverter.ip(c.getDownstreamRemoteAddress()));
    j.put("tls", tls);
    j.put("startTime", millis(c.getStartTime()));
    j.put("durationMs", millis(c.getTimeToLastDownstreamTxByte()) > 0 ? millis(c.getTimeToLastDownstreamTxByte())
        : millis(c.getDuration()));
  }

  /** The side the reporting proxy is: the server side when it is one, else the client side. */
  private static CallRecord ownSide(List<CallRecord> records) {
    for (CallRecord r : records) {
      if (r.detectPoint() == DetectPoint.SERVER) {
        return r;
      }
    }
    return records.get(0);
  }

  /** Whether the service's budget (and its class's, for failures) has room this minute; streams share it. */
  private synchronized boolean admit(String service, boolean failed, String logClass) {
    long now = System.currentTimeMillis() / 60_000;
    if (now != minute) {
      kept.clear();
      minute = now;
    }
    int limit = failed ? perServicePerMinute : successPerServicePerMinute;
    if (limit == 0) {
      return false;
    }
    String serviceKey = (failed ? "f|" : "s|") + service;
    int[] forService = kept.get(serviceKey);
    if (forService == null && kept.size() >= 2 * maxServices) {
      rateLimited.increment();
      return false;
    }
    if (forService != null && forService[0] >= limit) {
      rateLimited.increment();
      return false;
    }
    if (failed) {
      String classKey = serviceKey + "|" + logClass;
      int[] forClass = kept.get(classKey);
      // A proxy may send any status code: the classes of a minute are bounded with the services.
      if (forClass == null && kept.size() >= MAX_KEYS_PER_SERVICE * maxServices
          || forClass != null && forClass[0] >= perClassPerMinute) {
        rateLimited.increment();
        return false;
      }
      kept.computeIfAbsent(classKey, k -> new int[1])[0]++;
    }
    kept.computeIfAbsent(serviceKey, k -> new int[1])[0]++;
    return true;
  }

  private void emit(String nodeId, byte[] entry, LogEntry log) {
    out.accept(LogRecords.toRecord(id(nodeId, entry), log));
  }

  /** The same entry from the same proxy (a replayed stream) gets the same id, so it is stored once. */
  private static String id(String nodeId, byte[] entry) {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      d.update(nodeId.getBytes(StandardCharsets.UTF_8));
      d.update(entry);
      return HexFormat.of().formatHex(d.digest(), 0, 16);
    } catch (NoSuchAlgorithmException ex) {
      throw new IllegalStateException("every JVM has SHA-256", ex);
    }
  }

  private static long millis(Timestamp t) {
    return t.getSeconds() * 1000 + t.getNanos() / 1_000_000;
  }

  private static long millis(Duration d) {
    return d.getSeconds() * 1000 + d.getNanos() / 1_000_000;
  }

  /** A flat JSON object; empty strings are left out. */
  private static final class Json {
    private final StringBuilder b = new StringBuilder("{");

    void put(String key, String value) {
      if (value != null && !value.isEmpty()) {
        key(key);
        quote(value.length() > MAX_VALUE_CHARS ? value.substring(0, MAX_VALUE_CHARS) : value);
      }
    }

    void put(String key, long value) {
      key(key);
      b.append(value);
    }

    void put(String key, List<String> values) {
      key(key);
      b.append('[');
      for (int i = 0; i < values.size(); i++) {
        b.append(i == 0 ? "" : ",");
        quote(values.get(i));
      }
      b.append(']');
    }

    private void key(String key) {
      b.append(b.length() == 1 ? "" : ",");
      quote(key);
      b.append(':');
    }

    private void quote(String s) {
      b.append('"');
      for (int i = 0; i < s.length(); i++) {
        char ch = s.charAt(i);
        switch (ch) {
          case '"' -> b.append("\\\"");
          case '\\' -> b.append("\\\\");
          case '\n' -> b.append("\\n");
          case '\r' -> b.append("\\r");
          case '\t' -> b.append("\\t");
          default -> {
            if (ch < 0x20) {
              b.append(String.format("\\u%04x", (int) ch));
            } else {
              b.append(ch);
            }
          }
        }
      }
      b.append('"');
    }

    @Override
    public String toString() {
      return b + "}";
    }
  }
}
