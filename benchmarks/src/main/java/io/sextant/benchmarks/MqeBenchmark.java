package io.sextant.benchmarks;

import io.sextant.core.query.mqe.Expression;
import io.sextant.core.query.mqe.Mqe;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** Parsing typical dashboard expressions: every panel of every refresh parses one. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class MqeBenchmark {
  @Param({
      "relabels(service_percentile{p='50,75,90,95,99'},p='50,75,90,95,99',percentile='50,75,90,95,99')",
      "service_sla/100",
      "avg(service_resp_time) > 100 * 2",
      "top_n(service_cpm,10,des)"
  })
  public String expression;

  @Setup
  public void check() {
    Mqe.parse(expression); // fail the run at once if the expression is not valid
  }

  @Benchmark
  public Expression parse() {
    return Mqe.parse(expression);
  }
}
