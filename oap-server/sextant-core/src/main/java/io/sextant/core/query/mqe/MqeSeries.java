package io.sextant.core.query.mqe;

import java.util.List;

/** One labelled series of a result (SkyWalking's {@code MQEValues}). */
public record MqeSeries(List<KeyValue> labels, List<MqeValue> values) {
  public MqeSeries {
    // Defensive, immutable copies: results are shared between evaluation steps.
    labels = labels == null ? List.of() : List.copyOf(labels);
    values = values == null ? List.of() : List.copyOf(values);
  }
}
