package io.sextant.core.metric;

import io.sextant.api.model.KernelField;
import io.sextant.api.model.KernelOperation;
import io.sextant.api.model.KernelRecord;
import io.sextant.api.model.Observation;
import io.sextant.api.model.Scope;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * The K8S_SERVICE layer's metrics from SkyWalking Rover's access log ({@link KernelRecord}s):
 * SkyWalking's {@code ebpf.oal} held as data in {@code metrics/k8s-service.txt}, one row a metric,
 * turned here into definitions over the one record shape, so the 296 metrics need no code each.
 */
public final class K8sServiceMetricTable implements MetricTable {
  static final String RESOURCE = "/metrics/k8s-service.txt";

  private final long apdexThresholdMillis;

  public K8sServiceMetricTable(long apdexThresholdMillis) {
    this.apdexThresholdMillis = apdexThresholdMillis;
  }

  @Override
  public List<MetricDefinition> definitions() {
    List<MetricDefinition> t = new ArrayList<>();
    for (String line : lines()) {
      t.add(definition(line));
    }
    return t;
  }

  private MetricDefinition definition(String line) {
    String[] c = line.trim().split("\\s+");
    if (c.length != 7) {
      throw new IllegalStateException(RESOURCE + ": expected 7 columns in '" + line + "'");
    }
    Predicate<Observation> filter = operation(c[3]).and(condition(c[4]));
    AggregateFunction f = function(c[5], c[6]);
    KernelOperation only = "ANY".equals(c[3]) ? null : KernelOperation.valueOf(c[3]);
    return new MetricDefinition(c[0], Source.KERNEL, Scope.valueOf(c[1]), Side.valueOf(c[2]),
        Functions.when(filter, f), only);
  }

  private static Predicate<Observation> operation(String name) {
    if ("ANY".equals(name)) {
      return r -> true;
    }
    KernelOperation op = KernelOperation.valueOf(name);
    return r -> ((KernelRecord) r).operation() == op;
  }

  private static Predicate<Observation> condition(String name) {
    if ("-".equals(name)) {
      return r -> true;
    }
    if ("SUCCESS".equals(name)) {
      return r -> ((KernelRecord) r).success();
    }
    if (name.length() == 3 && name.endsWith("XX") && Character.isDigit(name.charAt(0))) {
      int low = (name.charAt(0) - '0') * 100;
      return r -> {
        int status = ((KernelRecord) r).statusCode();
        return status >= low && status < low + 100;
      };
    }
    throw new IllegalStateException(RESOURCE + ": unknown condition " + name);
  }

  private AggregateFunction function(String name, String fieldName) {
    return switch (name) {
      case "cpm" -> Functions.cpm();
      case "sum" -> Functions.sum(field(fieldName));
      case "longAvg" -> Functions.longAvg(field(fieldName));
      case "percent" -> Functions.percent(r -> ((KernelRecord) r).success());
      case "apdex" -> Functions.apdex(field(fieldName), r -> ((KernelRecord) r).success(), apdexThresholdMillis);
      case "percentile" -> Functions.percentile(field(fieldName));
      default -> throw new IllegalStateException(RESOURCE + ": unknown function " + name);
    };
  }

  private static ToLongFunction<Observation> field(String name) {
    int slot = KernelField.valueOf(name).ordinal();
    return r -> ((KernelRecord) r).values()[slot];
  }

  private static List<String> lines() {
    try (InputStream in = K8sServiceMetricTable.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the classpath");
      }
      List<String> lines = new ArrayList<>();
      BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        if (!line.isBlank() && !line.startsWith("#")) {
          lines.add(line);
        }
      }
      return lines;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
