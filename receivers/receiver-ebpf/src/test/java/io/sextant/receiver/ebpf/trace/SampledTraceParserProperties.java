package io.sextant.receiver.ebpf.trace;

import static io.sextant.receiver.ebpf.RoverArbitraries.offTheWire;
import static io.sextant.receiver.ebpf.RoverArbitraries.text;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sextant.api.storage.StoredRecord;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;
import org.apache.skywalking.apm.network.common.v3.KeyStringValuePair;
import org.apache.skywalking.apm.network.logging.v3.JSONLog;
import org.apache.skywalking.apm.network.logging.v3.LogData;
import org.apache.skywalking.apm.network.logging.v3.LogDataBody;
import org.apache.skywalking.apm.network.logging.v3.LogTags;
import org.apache.skywalking.apm.network.logging.v3.TextLog;
import org.apache.skywalking.apm.network.logging.v3.TraceContext;

/**
 * Fuzzing the reading of Rover's sampled-trace logs (jqwik): {@code LogData} tagged as sampled traces
 * or not, whose JSON body has Rover's fields with values of any JSON type, or is that JSON with
 * characters changed or cut, or is not JSON, as they come off the wire, also with bytes changed, is a
 * sample, not a sampled trace, or refused with a reason, never an exception; a sample's record is
 * made. A longer run: {@code -Djqwik.tries.default=100000} (docs/reliability.md).
 */
class SampledTraceParserProperties {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> FIELDS = List.of("uri", "reason", "latency", "detect_point", "component", "ssl",
      "status", "client_process", "server_process");
  private static final Object ABSENT = new Object();
  private final SampledTraceParser parser = new SampledTraceParser(1024);

  @Property
  void everyLogIsASampleOrNotOrRefused(@ForAll("logs") LogData log) {
    SampledTraceParser.Outcome outcome = parser.parse(log, 1_790_000_000_000L);
    if (outcome instanceof SampledTraceParser.Outcome.Sample s) {
      StoredRecord record = s.trace().toRecord();
      assertThat(record.entityId()).isEqualTo(s.trace().relationId());
      Statistics.collect("sample");
    } else if (outcome instanceof SampledTraceParser.Outcome.Refused r) {
      Statistics.collect(r.reason());
    } else {
      Statistics.collect("not a sampled trace");
    }
  }

  @Provide
  Arbitrary<LogData> logs() {
    Arbitrary<Object> scalar = Arbitraries.frequencyOf(Tuple.of(3, text().map(s -> (Object) s)),
        Tuple.of(1, Arbitraries.<Object>of(0, -1, 12, Long.MAX_VALUE, 1e300, 2.5, true, false, "SLOW", "status_5xx",
            "server", "CLIENT", "proxy", "9223372036854775808")), Tuple.of(1, Arbitraries.<Object>just(Map.of())));
    Arbitrary<Object> id = Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.<Object>of("", "p-backend")),
        Tuple.of(1, scalar));
    Arbitrary<Object> local = Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.<Object>of(true, false)),
        Tuple.of(1, scalar));
    Arbitrary<Object> side = Combinators.combine(id, local, scalar).as((i, l, a) -> (Object) Map.of("process_id", i,
        "local", l, "address", a));
    // Each of Rover's fields: a value Rover sends, any value, or absent.
    Map<String, Arbitrary<Object>> rover = Map.of("uri", Arbitraries.<Object>of("/pay", "/", "/x?y=1"),
        "reason", Arbitraries.<Object>of("slow", "status_4xx", "STATUS_5XX"),
        "latency", Arbitraries.<Object>of(0, 12, 30_000),
        "detect_point", Arbitraries.<Object>of("client", "server", "proxy"),
        "component", Arbitraries.<Object>of("http", "https", "tcp"),
        "ssl", Arbitraries.<Object>of(true, false),
        "status", Arbitraries.<Object>of(200, 404, 503),
        "client_process", side,
        "server_process", side);
    List<Arbitrary<Object>> fields = FIELDS.stream().map(f -> Arbitraries.frequencyOf(Tuple.of(6, rover.get(f)),
        Tuple.of(1, scalar), Tuple.of(1, Arbitraries.just(ABSENT)))).toList();
    Arbitrary<String> body = Combinators.combine(fields).as(values -> {
      Map<String, Object> json = new LinkedHashMap<>();
      for (int i = 0; i < FIELDS.size(); i++) {
        if (values.get(i) != ABSENT) {
          json.put(FIELDS.get(i), values.get(i));
        }
      }
      return JSON.valueToTree(json).toString();
    });
    Arbitrary<String> damaged = Combinators.combine(body, Arbitraries.integers().between(0, 400),
        Arbitraries.chars().with('{', '}', '"', ',', ':', '[', '\\', '0', 'e')).as((json, at, c) -> at % 2 == 0
            ? json.substring(0, Math.min(at, json.length())) : new StringBuilder(json)
                .insert(Math.min(at, json.length()), c).toString());
    Arbitrary<LogDataBody> logBody = Arbitraries.frequencyOf(Tuple.of(6, body), Tuple.of(2, damaged),
        Tuple.of(1, text())).map(json -> LogDataBody.newBuilder().setJson(JSONLog.newBuilder().setJson(json)).build());
    Arbitrary<LogDataBody> anyBody = Arbitraries.frequencyOf(Tuple.of(8, logBody), Tuple.of(1, Arbitraries.just(
        LogDataBody.newBuilder().setText(TextLog.newBuilder().setText("{}")).build())));
    Arbitrary<String> kind = Arbitraries.frequencyOf(Tuple.of(8, Arbitraries.just("NET_PROFILING_SAMPLED_TRACE")),
        Tuple.of(1, text()));
    Arbitrary<LogData> log = Combinators.combine(kind, text().list().ofSize(4), Arbitraries.longs(), anyBody)
        .as((k, names, time, b) -> LogData.newBuilder().setService(names.get(0)).setServiceInstance(names.get(1))
            .setLayer("MESH").setTimestamp(time % 5 == 0 ? time : Math.abs(time % 1_000_000))
            .setTags(LogTags.newBuilder().addData(KeyStringValuePair.newBuilder().setKey("LOG_KIND").setValue(k)))
            .setTraceContext(TraceContext.newBuilder().setTraceId(names.get(2)).setTraceSegmentId(names.get(3)))
            .setBody(b).build());
    return offTheWire(log, LogData.parser());
  }

}
