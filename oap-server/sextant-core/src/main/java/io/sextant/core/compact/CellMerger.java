package io.sextant.core.compact;

import io.sextant.api.storage.MetricsStore;
import io.sextant.api.storage.PartialRow;
import io.sextant.core.metric.EncodedState;
import io.sextant.core.metric.MetricCatalog;
import io.sextant.core.metric.MetricDefinition;
import io.sextant.core.metric.MetricState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Merges rows' cells metric by metric with each metric's own function, as queries merge partials. */
final class CellMerger implements MetricsStore.RowMerger {
  private final MetricCatalog catalog;

  CellMerger(MetricCatalog catalog) {
    this.catalog = catalog;
  }

  @Override
  public List<PartialRow.Cell> merge(List<PartialRow> rows) {
    Map<String, MetricState> merged = new LinkedHashMap<>();
    for (PartialRow row : rows) {
      for (PartialRow.Cell c : row.cells()) {
        Optional<MetricDefinition> def = catalog.find(c.metric());
        if (def.isEmpty()) {
          return null; // a metric this version does not know: leave the rows to whoever wrote them
        }
        def.get().function().merge(merged.computeIfAbsent(c.metric(), m -> new MetricState()),
            EncodedState.stored(c.values(), c.sketch()).decode());
      }
    }
    List<PartialRow.Cell> cells = new ArrayList<>(merged.size());
    merged.forEach((metric, state) -> {
      EncodedState e = EncodedState.of(state);
      cells.add(new PartialRow.Cell(metric, e.counters(), e.sketch()));
    });
    return cells;
  }
}
