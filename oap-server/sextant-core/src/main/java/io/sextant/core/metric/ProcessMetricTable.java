package io.sextant.core.metric;

import io.sextant.api.metric.RoverMeterRules;
import io.sextant.api.metric.RoverMeterRules.Rule;
import io.sextant.api.model.Observation;
import io.sextant.api.model.ProcessSampleRecord;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * The process and process-relation metrics of SkyWalking Rover's meters: one metric per row of
 * {@link RoverMeterRules}, the table the eBPF receiver evaluates, so every metric a rule names has a
 * definition and no definition lacks a rule.
 */
public final class ProcessMetricTable implements MetricTable {
  private static final ToLongFunction<Observation> VALUE = r -> ((ProcessSampleRecord) r).value();
  private static final ToLongFunction<Observation> BUCKET = r -> ((ProcessSampleRecord) r).bucket();

  @Override
  public List<MetricDefinition> definitions() {
    return RoverMeterRules.RULES.stream().map(ProcessMetricTable::definition).toList();
  }

  private static MetricDefinition definition(Rule rule) {
    AggregateFunction f = switch (rule.function()) {
      case SUM_PER_MIN -> Functions.sumPerMin(VALUE);
      case AVG -> Functions.longAvg(VALUE);
      case HISTOGRAM_PERCENTILE -> Functions.histogramPercentile(RoverMeterRules.PERCENTILE_RANKS, BUCKET, VALUE);
    };
    if (rule.labelKey() != null) {
      f = Functions.labelledBy(rule.labelKey(), f);
    }
    return new MetricDefinition(rule.metric(), Source.PROCESS_SAMPLE, rule.scope(), Side.ANY, f);
  }
}
