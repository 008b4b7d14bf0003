package io.sextant.core.metric;

import io.sextant.api.model.KernelOperation;
import io.sextant.api.model.KernelRecord;
import io.sextant.api.model.Observation;
import io.sextant.api.model.ProcessSampleRecord;
import io.sextant.api.model.SampleRecord;
import io.sextant.api.model.Scope;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/** The metrics one accumulator maintains: all definitions sharing a source and a scope. */
public final class MetricGroup {
  private final int index;
  private final Source source;
  private final Scope scope;
  private final MetricDefinition[] definitions;
  private final Side[] sides;
  private final AggregateFunction[] functions;
  /** For samples: the index of the one metric a sample feeds, by its name. */
  private final Map<String, Integer> indexByName = new HashMap<>();
  /** For kernel records: the rows each operation feeds (its own and those of any operation), or null. */
  private final int[][] rowsByOperation;

  MetricGroup(int index, Source source, Scope scope, List<MetricDefinition> definitions) {
    this.index = index;
    this.source = source;
    this.scope = scope;
    this.definitions = definitions.toArray(new MetricDefinition[0]);
    this.sides = definitions.stream().map(MetricDefinition::side).toArray(Side[]::new);
    this.functions = definitions.stream().map(MetricDefinition::function).toArray(AggregateFunction[]::new);
    for (int i = 0; i < this.definitions.length; i++) {
      indexByName.put(this.definitions[i].name(), i);
    }
    this.rowsByOperation = source == Source.KERNEL ? rowsByOperation(this.definitions) : null;
  }

  private static int[][] rowsByOperation(MetricDefinition[] definitions) {
    int[][] rows = new int[KernelOperation.values().length][];
    for (KernelOperation op : KernelOperation.values()) {
      rows[op.ordinal()] = IntStream.range(0, definitions.length)
          .filter(i -> definitions[i].operation() == null || definitions[i].operation() == op).toArray();
    }
    return rows;
  }

  public int index() {
    return index;
  }

  /** Stable name of the group, e.g. {@code CALL_SERVICE}: part of the ids of written rows. */
  public String name() {
    return source.name() + "_" + scope.name();
  }

  public Source source() {
    return source;
  }

  public Scope scope() {
    return scope;
  }

  public MetricDefinition[] definitions() {
    return definitions;
  }

  public MetricState[] newStates() {
    MetricState[] states = new MetricState[definitions.length];
    for (int i = 0; i < states.length; i++) {
      states[i] = new MetricState();
    }
    return states;
  }

  /**
   * Applies one record to every metric of the group whose side filter it passes; a sample is the
   * value of one named metric and feeds only that one (looked up, not tested row by row).
   */
  public void add(MetricState[] states, Observation record) {
    String named = record instanceof SampleRecord sample ? sample.metric()
        : record instanceof ProcessSampleRecord processSample ? processSample.metric() : null;
    if (named != null) {
      Integer i = indexByName.get(named);
      if (i != null && sides[i].matches(record.detectPoint())) {
        functions[i].add(states[i], record);
      }
      return;
    }
    if (rowsByOperation != null && record instanceof KernelRecord kernel) {
      // An access-log group has near a hundred rows; a record of one operation feeds a fifth of them.
      for (int i : rowsByOperation[kernel.operation().ordinal()]) {
        if (sides[i].matches(record.detectPoint())) {
          functions[i].add(states[i], record);
        }
      }
      return;
    }
    for (int i = 0; i < functions.length; i++) {
      if (sides[i].matches(record.detectPoint())) {
        functions[i].add(states[i], record);
      }
    }
  }

  public void merge(MetricState[] into, MetricState[] from) {
    for (int i = 0; i < functions.length; i++) {
      functions[i].merge(into[i], from[i]);
    }
  }
}
