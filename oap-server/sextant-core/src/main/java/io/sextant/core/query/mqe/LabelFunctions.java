package io.sextant.core.query.mqe;

import io.sextant.core.query.mqe.Evaluator.Value;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** aggregate_labels and sort_label_values: functions over the label sets of a labelled result. */
final class LabelFunctions {
  private LabelFunctions() {
  }

  /**
   * Groups the series by the values of the named labels (names absent from the first series are ignored; no names
   * makes one group) and folds each group index by index into one series labelled with those values.
   */
  static Value aggregate(Nodes.AggregateLabels a, Value input) {
    if (!input.labeled()) {
      throw new MqeException("The result of expression [" + a.operandText() + "] is not a labeled result.",
          input.toResult());
    }
    if (input.series().isEmpty()) {
      return input;
    }
    List<KeyValue> firstLabels = input.series().get(0).labels();
    List<String> names = a.labels().stream()
        .filter(name -> firstLabels.stream().anyMatch(kv -> kv.key().equals(name)))
        .toList();
    Map<List<KeyValue>, List<MqeSeries>> groups = new LinkedHashMap<>();
    for (MqeSeries s : input.series()) {
      List<KeyValue> key = names.stream().map(name -> new KeyValue(name, valueOf(s, name))).toList();
      groups.computeIfAbsent(key, k -> new ArrayList<>()).add(s);
    }
    List<MqeSeries> out = new ArrayList<>();
    groups.forEach((labels, group) -> {
      List<MqeValue> ids = group.get(0).values();
      List<MqeValue> values = new ArrayList<>(ids.size());
      for (int i = 0; i < ids.size(); i++) {
        List<MqeValue> column = new ArrayList<>();
        for (MqeSeries s : group) {
          if (i < s.values().size()) {
            column.add(s.values().get(i));
          }
        }
        values.add(new MqeValue(ids.get(i).id(), fold(a.function(), column)));
      }
      out.add(new MqeSeries(labels, values));
    });
    boolean labeled = !(groups.size() == 1 && groups.keySet().iterator().next().isEmpty());
    return new Value(input.type(), out, labeled);
  }

  /** avg/sum/max/min of the non-empty values; empty when there are none (unlike the sum aggregation). */
  private static Double fold(Aggregation function, List<MqeValue> column) {
    return column.stream().anyMatch(v -> v.value() != null) ? function.apply(column).value() : null;
  }

  /**
   * Orders the series by the values of the named labels (string order, the first label first; a missing label
   * counts as ""), keeping the input order between equal ones.
   */
  static Value sort(Nodes.SortLabelValues s, Value input) {
    Comparator<String> direction = s.ascending() ? Comparator.naturalOrder() : Comparator.reverseOrder();
    Comparator<MqeSeries> order = null;
    for (String name : s.labels().stream().distinct().toList()) {
      Comparator<MqeSeries> byLabel = Comparator.comparing(series -> valueOf(series, name), direction);
      order = order == null ? byLabel : order.thenComparing(byLabel);
    }
    List<MqeSeries> out = new ArrayList<>(input.series());
    out.sort(order);
    return new Value(input.type(), out, input.labeled());
  }

  private static String valueOf(MqeSeries series, String label) {
    return series.labels().stream().filter(kv -> kv.key().equals(label)).map(KeyValue::value).findFirst().orElse("");
  }
}
