package io.sextant.core.spool;

import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.core.aggregate.Journal;
import io.sextant.core.flush.CutLog;
import io.sextant.core.metric.MetricCatalog;

/**
 * The write path's two durability ports, on one spool or on none: the aggregator's {@link
 * Journal} and the flusher's {@link CutLog}. They stop together when the disk fails.
 */
public record SpoolPorts(Journal journal, CutLog cutLog) {
  /** Nothing outlives the process. */
  public static final SpoolPorts NONE = new SpoolPorts(Journal.NONE, CutLog.NONE);

  /**
   * Opens this run's spool ({@code writerId}, as the flusher will write with) in {@code config}'s
   * directory; {@link #NONE} when {@code config} is null (no directory configured).
   */
  public static SpoolPorts open(SpoolConfig config, String writerId, MetricCatalog catalog, MeterRegistry registry) {
    if (config == null) {
      return NONE;
    }
    Spool spool = new Spool(config, writerId, registry);
    SpoolJournal journal = new SpoolJournal(spool, registry);
    return new SpoolPorts(journal,
        new SpoolCutLog(spool, journal, config, new SpoolRecovery(catalog, registry), registry));
  }
}
