package io.sextant.core.profiling;

import io.sextant.api.ebpf.StackBatches;
import io.sextant.api.storage.RecordQuery;
import io.sextant.api.storage.RecordStore;
import io.sextant.api.storage.StoredRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * {@code analysisEBPFProfilingResult}: the stack records of the schedules uploaded within any of the
 * time ranges (inclusive; a range whose start is not before its end selects nothing, as in
 * SkyWalking), each record counted once however many ranges hold it, folded into flame-graph trees.
 * At most {@code maxRecords} records are read (newest first); past that the answer says so in its tip.
 * Records are folded oldest first, so sibling frames are ordered as first sent.
 */
public final class ProfilingAnalysis {
  /** Default bound on stack records read by one analysis (each holds up to a batch of samples). */
  public static final int DEFAULT_MAX_RECORDS = 20_000;

  private final Supplier<RecordStore> records;
  private final int maxRecords;

  public ProfilingAnalysis(Supplier<RecordStore> records, int maxRecords) {
    this.records = records;
    this.maxRecords = maxRecords;
  }

  public enum AggregateType { COUNT, DURATION }

  public record TimeRange(long start, long end) {}

  public FlameGraph analyze(List<String> scheduleIds, List<TimeRange> ranges, AggregateType type) {
    FlameGraphBuilder builder = new FlameGraphBuilder(type == AggregateType.DURATION);
    if (scheduleIds.isEmpty()) {
      return new FlameGraph(null, List.of());
    }
    Set<String> seen = new HashSet<>();
    List<StoredRecord> all = new ArrayList<>();
    boolean truncated = false;
    for (TimeRange r : ranges) {
      if (r.start() >= r.end()) {
        continue;
      }
      int left = maxRecords - seen.size();
      if (left <= 0) {
        truncated = true;
        break;
      }
      List<StoredRecord> found = records.get().read(new RecordQuery(StackBatches.KIND, List.copyOf(scheduleIds),
          r.start(), r.end(), List.of(), left));
      if (found.size() == left) {
        truncated = true;
      }
      for (StoredRecord rec : found) {
        if (seen.add(rec.id())) {
          all.add(rec);
        }
      }
    }
    // Oldest first, so siblings come in the order Rover first sent them, whatever order storage answers in.
    all.sort(Comparator.comparingLong(StoredRecord::timeMillis).thenComparing(StoredRecord::id));
    for (StoredRecord rec : all) {
      builder.add(StackBatches.decode(rec.body()));
    }
    String tip = truncated
        ? "Out of analysis limit: only the newest " + maxRecords + " stack records were analyzed, narrow the time range"
        : null;
    return new FlameGraph(tip, builder.trees());
  }
}
