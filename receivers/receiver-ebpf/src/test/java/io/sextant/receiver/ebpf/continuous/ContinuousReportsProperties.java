package io.sextant.receiver.ebpf.continuous;

import static io.sextant.receiver.ebpf.RoverArbitraries.offTheWire;
import static io.sextant.receiver.ebpf.RoverArbitraries.text;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sextant.api.ebpf.ProfilingTask;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousNetworkProfilingTask;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousOffCPUProfilingTask;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousOnCPUProfilingTask;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousProfilingCause;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousProfilingReport;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousProfilingSingleValueCause;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousProfilingURICause;

/**
 * Fuzzing the reading of Rover's continuous-profiling reports (jqwik): {@code
 * ContinuousProfilingReport}s with any names, target, duration and causes (any monitor type, single
 * value, URI regex or path, or none), as they come off the wire, also with bytes changed, become a
 * {@code CONTINUOUS_PROFILING} task or are refused with {@link ContinuousReports.Refused}, never
 * another exception; a task keeps within the bounds and its extension is JSON. A longer run: {@code
 * -Djqwik.tries.default=100000} (docs/reliability.md).
 */
class ContinuousReportsProperties {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final ContinuousConfig config = new ContinuousConfig(60, 100, 100, 3, 3600, 3);
  private final ContinuousReports reports = new ContinuousReports(1024, config);

  @Property
  void everyReportIsATaskOrRefused(@ForAll("reports") ContinuousProfilingReport report) throws Exception {
    ProfilingTask task;
    try {
      task = reports.toTask(report, 1_790_000_000_000L);
    } catch (ContinuousReports.Refused refused) {
      Statistics.collect(refused.reason);
      return;
    }
    Statistics.collect(task.targetType());
    assertThat(task.fixedTriggerDurationSeconds()).isBetween(1L, (long) config.maxTaskSeconds());
    assertThat(task.causes()).hasSizeLessThanOrEqualTo(config.maxCauses());
    if (!task.extensionConfigJson().isEmpty()) {
      assertThat(JSON.readTree(task.extensionConfigJson()).get("networkSamplings").size())
          .isEqualTo(report.getNetwork().getSamplingURIRegexesCount());
    }
  }

  @Provide
  Arbitrary<ContinuousProfilingReport> reports() {
    Arbitrary<Double> number = Arbitraries.oneOf(Arbitraries.doubles(), Arbitraries.of(Double.NaN, -0.0,
        Double.POSITIVE_INFINITY));
    Arbitrary<ContinuousProfilingCause> how = Combinators.combine(Arbitraries.integers().between(0, 3),
        text(), number, number).as((kind, s, threshold, current) -> switch (kind) {
          case 0 -> ContinuousProfilingCause.newBuilder().setSingleValue(ContinuousProfilingSingleValueCause
              .newBuilder().setThreshold(threshold).setCurrent(current)).build();
          case 1 -> ContinuousProfilingCause.newBuilder().setUri(ContinuousProfilingURICause.newBuilder()
              .setRegex(s).setThreshold(threshold).setCurrent(current)).build();
          case 2 -> ContinuousProfilingCause.newBuilder().setUri(ContinuousProfilingURICause.newBuilder()
              .setPath(s).setThreshold(threshold)).build();
          default -> ContinuousProfilingCause.getDefaultInstance();
        });
    Arbitrary<Integer> monitor = Arbitraries.frequencyOf(Tuple.of(6, Arbitraries.integers().between(0, 4)),
        Tuple.of(1, Arbitraries.integers()));
    Arbitrary<ContinuousProfilingCause> cause = Combinators.combine(monitor, how)
        .as((type, c) -> c.toBuilder().setTypeValue(type).build());
    Arbitrary<Integer> targetKind = Arbitraries.frequencyOf(Tuple.of(9, Arbitraries.integers().between(0, 2)),
        Tuple.of(1, Arbitraries.just(3)));
    Arbitrary<ContinuousProfilingReport> target = Combinators.combine(targetKind,
        text().list().ofMaxSize(4)).as((kind, regexes) -> switch (kind) {
          case 0 -> ContinuousProfilingReport.newBuilder().setOnCPU(ContinuousOnCPUProfilingTask.getDefaultInstance())
              .build();
          case 1 -> ContinuousProfilingReport.newBuilder()
              .setOffCPU(ContinuousOffCPUProfilingTask.getDefaultInstance()).build();
          case 2 -> ContinuousProfilingReport.newBuilder().setNetwork(ContinuousNetworkProfilingTask.newBuilder()
              .addAllSamplingURIRegexes(regexes)).build();
          default -> ContinuousProfilingReport.getDefaultInstance();
        });
    Arbitrary<Integer> duration = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.integers()),
        Tuple.of(1, Arbitraries.of(0, 3601)), Tuple.of(6, Arbitraries.of(1, 60, 3600)));
    Arbitrary<List<String>> names = text().list().ofSize(3);
    Arbitrary<ContinuousProfilingReport> report = Combinators.combine(target, names, duration,
        cause.list().ofMaxSize(4)).as((r, n, d, causes) -> r.toBuilder().setServiceName(n.get(0))
            .setInstanceName(n.get(1)).setProcessName(n.get(2)).setLayer("MESH").setDuration(d).addAllCauses(causes)
            .build());
    return offTheWire(report, ContinuousProfilingReport.parser());
  }
}
