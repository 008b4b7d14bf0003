package io.sextant.core.query.mqe;

import io.sextant.api.time.Step;
import java.util.ArrayList;
import java.util.List;

/** Known input series and result builders shared by the MQE evaluation tests. */
abstract class MqeTestSupport {
  static final List<Long> BUCKETS = List.of(202611221030L, 202611221031L, 202611221032L);
  static final MqeEntity SERVICE = new MqeEntity("shop", true, null, null, null, null, null, null, null, null);

  final FakeSource source = new FakeSource()
      .metric("service_cpm", 10.0, null, 30.0)
      .metric("service_sla", 10000.0, 9000.0, 9500.0)
      .metric("service_resp_time", 2500.0, 3500.0, null)
      .metric("zeros", 0.0, 0.0, null)
      .metric("all_null", null, null, null)
      .labelled("service_percentile", "p", "50", 100.0, 110.0, null)
      .labelled("service_percentile", "p", "75", 200.0, 210.0, 220.0)
      .labelled("service_percentile", "p", "90", 300.0, null, 320.0)
      .labelled("other_percentile", "p", "90", 3.0, 0.0, 2.0)
      .labelled("other_percentile", "p", "50", 1.0, 2.0, 4.0)
      .labelled("other_percentile", "p", "99", 9.0, 9.0, 9.0);

  MqeResult eval(String expression) {
    return Mqe.evaluate(expression, source, SERVICE, BUCKETS, Step.MINUTE);
  }

  /** A series over BUCKETS with the given labels. */
  static MqeSeries lts(List<KeyValue> labels, Double... values) {
    List<MqeValue> points = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      points.add(new MqeValue(Long.toString(BUCKETS.get(i)), values[i]));
    }
    return new MqeSeries(labels, points);
  }

  static MqeSeries ts(Double... values) {
    return lts(List.of(), values);
  }

  static List<KeyValue> p(String value) {
    return List.of(new KeyValue("p", value));
  }

  static List<KeyValue> labels(String... keyValues) {
    List<KeyValue> out = new ArrayList<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      out.add(new KeyValue(keyValues[i], keyValues[i + 1]));
    }
    return out;
  }

  static MqeValue point(String id, Double value) {
    return new MqeValue(id, value);
  }

  static MqeSeries single(List<KeyValue> labels, Double value) {
    return new MqeSeries(labels, List.of(new MqeValue(null, value)));
  }

  static MqeResult ok(ResultType type, MqeSeries... series) {
    return new MqeResult(type, List.of(series), null);
  }

  static MqeResult error(String message) {
    return new MqeResult(ResultType.UNKNOWN, List.of(), message);
  }
}
