package io.sextant.receiver.ebpf.meter;

import io.sextant.api.ebpf.ProcessIds;
import io.sextant.api.id.EntityIds;
import io.sextant.api.metric.RoverMeterRules;
import io.sextant.api.metric.RoverMeterRules.Aggregation;
import io.sextant.api.metric.RoverMeterRules.Combine;
import io.sextant.api.metric.RoverMeterRules.Rule;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Layer;
import io.sextant.api.model.ProcessSampleRecord;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.skywalking.apm.network.language.agent.v3.Label;
import org.apache.skywalking.apm.network.language.agent.v3.MeterBucketValue;
import org.apache.skywalking.apm.network.language.agent.v3.MeterData;

/**
 * Evaluates {@link RoverMeterRules} over one {@link MeterBatch}, as SkyWalking's MAL does with
 * {@code network-profiling.yaml} and {@code continuous-profiling.yaml}: a missing process id is the
 * instance's virtual local process ({@code <side>_local=true}) or its virtual remote process; the
 * component comes from {@code protocol}/{@code is_ssl}; the values of the batch sharing an entity,
 * label and histogram bucket are summed (network) or averaged (continuous), multiplied by the rule's
 * factor and rounded as SkyWalking rounds a sample ({@code <= 0} → 0, below 1 → 1, else nearest).
 * Stateless and thread-safe.
 */
public final class RoverMeterEngine {
  static final String UNMAPPED = "unmapped_meter";

  /** Where the engine's results go. */
  public interface Output {
    /** False when the sink refused for good (overloaded): stop. */
    boolean sample(ProcessSampleRecord sample);

    void refuse(String reason, String detail, long count);

    /** Samples whose meter no rule maps: counted and ignored, not an error to Rover. */
    void unmapped(long count);

    /** A virtual process the batch named; its id is returned by {@link RoverMeterEngine#processIdUnder}. */
    void virtualProcess(String service, String instance, String name);

    /** True if the local process may gain a relation to {@code peer} (bounded per process). */
    boolean admitRelation(String localProcessId, String peer);
  }

  private final int maxStringLength;

  public RoverMeterEngine(int maxStringLength) {
    this.maxStringLength = maxStringLength;
  }

  /** The id of the process named {@code name} under the (normal) service instance, as SkyWalking builds it. */
  static String processIdUnder(String service, String instance, String name) {
    return ProcessIds.processId(EntityIds.instanceId(EntityIds.serviceId(service, true), instance), name);
  }

  /** Evaluates one batch; {@code receivedMillis} stands for a batch without a timestamp. */
  public void evaluate(MeterBatch batch, long receivedMillis, Output out) {
    if (batch.meters.isEmpty()) {
      return;
    }
    if (batch.service.isEmpty() || batch.instance.isEmpty()) {
      out.refuse("missing_service", "a meter batch names no service or service instance", batch.size());
      return;
    }
    if (batch.service.length() > maxStringLength || batch.instance.length() > maxStringLength) {
      out.refuse("string_too_long", "service or instance name longer than " + maxStringLength, batch.size());
      return;
    }
    long time = batch.timestamp > 0 ? batch.timestamp : receivedMillis;
    Map<Key, double[]> combined = new HashMap<>();
    // Process ids are SHA-256 digests: compute each name's once per batch, and announce it once.
    Map<String, String> ids = new HashMap<>();
    long unmapped = 0;
    for (MeterData data : batch.meters) {
      boolean histogram = data.getMetricCase() == MeterData.MetricCase.HISTOGRAM;
      if (!histogram && data.getMetricCase() != MeterData.MetricCase.SINGLEVALUE) {
        out.refuse("empty_meter", "a MeterData carries neither a single value nor a histogram", 1);
        continue;
      }
      String name = histogram ? data.getHistogram().getName() : data.getSingleValue().getName();
      Rule rule = RoverMeterRules.find(name);
      if (rule == null) {
        unmapped++;
        continue;
      }
      if (histogram != (rule.function() == Aggregation.HISTOGRAM_PERCENTILE)) {
        out.refuse("meter_type_mismatch", name + " must be a " + (histogram ? "single value" : "histogram"), 1);
        continue;
      }
      List<Label> labels = histogram ? data.getHistogram().getLabelsList() : data.getSingleValue().getLabelsList();
      Key base = key(rule, labels, batch, ids, out);
      if (base == null) {
        continue;
      }
      if (histogram) {
        for (MeterBucketValue b : data.getHistogram().getValuesList()) {
          long bucket = b.getIsNegativeInfinity() ? Long.MIN_VALUE : (long) b.getBucket();
          add(combined, base.withBucket(bucket), b.getCount());
        }
      } else {
        add(combined, base, data.getSingleValue().getValue());
      }
    }
    if (unmapped > 0) {
      out.unmapped(unmapped);
    }
    for (Map.Entry<Key, double[]> e : combined.entrySet()) {
      Key k = e.getKey();
      double[] v = e.getValue();
      double value = (k.rule.combine() == Combine.AVG ? v[0] / v[1] : v[0]) * k.rule.scale();
      ProcessSampleRecord r = new ProcessSampleRecord(time, k.rule.scope(), batch.service, batch.instance, k.layer,
          k.side, k.client, k.server, k.component, k.rule.metric(), k.label, k.bucket, round(value));
      if (!out.sample(r)) {
        return;
      }
    }
  }

  private static void add(Map<Key, double[]> combined, Key key, double value) {
    double[] v = combined.computeIfAbsent(key, k -> new double[2]);
    v[0] += value;
    v[1]++;
  }

  /** SkyWalking's {@code Analyzer.getValue}. */
  static long round(double value) {
    if (value <= 0.0) {
      return 0L;
    }
    if (value < 1.0) {
      return 1L;
    }
    return Math.round(value);
  }

  /** Rover's labels of one sample, read in one pass (a map per sample costs a third of the engine). */
  private static final class Labels {
    String clientProcessId;
    String serverProcessId;
    String clientLocal;
    String serverLocal;
    String clientAddress;
    String serverAddress;
    String side = "";
    String protocol;
    String ssl;
    String processName = "";
    String layer;
    String ruleLabel = "";

    String processId(String prefix) {
      return prefix.equals("client") ? clientProcessId : serverProcessId;
    }

    String local(String prefix) {
      return prefix.equals("client") ? clientLocal : serverLocal;
    }

    String address(String prefix) {
      return prefix.equals("client") ? clientAddress : serverAddress;
    }
  }

  /** The entity, side and label of one sample, or null (counted) when a required label is missing. */
  private Key key(Rule rule, List<Label> labels, MeterBatch batch, Map<String, String> ids, Output out) {
    Labels l = new Labels();
    for (int i = 0; i < labels.size(); i++) {
      Label label = labels.get(i);
      String value = label.getValue();
      if (value.length() > maxStringLength) {
        out.refuse("string_too_long", "label " + label.getName() + " longer than " + maxStringLength, 1);
        return null;
      }
      String name = label.getName();
      switch (name) {
        case "client_process_id" -> l.clientProcessId = value;
        case "server_process_id" -> l.serverProcessId = value;
        case "client_local" -> l.clientLocal = value;
        case "server_local" -> l.serverLocal = value;
        case "client_address" -> l.clientAddress = value;
        case "server_address" -> l.serverAddress = value;
        case "side" -> l.side = value;
        case "protocol" -> l.protocol = value;
        case "is_ssl" -> l.ssl = value;
        case "process_name" -> l.processName = value;
        case "layer" -> l.layer = value;
        default -> {
          if (name.equals(rule.labelKey())) {
            l.ruleLabel = value;
          }
        }
      }
    }
    String label = "";
    if (rule.labelKey() != null) {
      label = l.ruleLabel;
      if (label.isEmpty()) {
        out.refuse("missing_label", rule.meter() + " needs label " + rule.labelKey(), 1);
        return null;
      }
    }
    if (!rule.scope().isRelation()) {
      if (l.processName.isEmpty()) {
        out.refuse("missing_label", rule.meter() + " needs label process_name", 1);
        return null;
      }
      String id = ids.computeIfAbsent(l.processName, n -> processIdUnder(batch.service, batch.instance, n));
      return new Key(rule, id, "", DetectPoint.SERVER, "", label, 0, layer(l.layer));
    }
    DetectPoint side = switch (l.side) {
      case "client" -> DetectPoint.CLIENT;
      case "server" -> DetectPoint.SERVER;
      default -> null;
    };
    if (side == null) {
      out.refuse("missing_label", rule.meter() + " needs label side (client or server), got '" + l.side + "'", 1);
      return null;
    }
    String client = processId("client", l, batch, ids, out, rule);
    String server = client == null ? null : processId("server", l, batch, ids, out, rule);
    if (server == null) {
      return null;
    }
    String local = side == DetectPoint.CLIENT ? client : server;
    String peer = side == DetectPoint.CLIENT ? server : client;
    if (!out.admitRelation(local, peer)) {
      out.refuse("too_many_relations", "process " + local + " has too many peers this minute", 1);
      return null;
    }
    return new Key(rule, client, server, side, component(l.protocol, l.ssl), label, 0, Layer.UNDEFINED);
  }

  /** The {@code <side>_process_id}, else the instance's virtual local or remote process. */
  private static String processId(String prefix, Labels l, MeterBatch batch, Map<String, String> ids, Output out,
      Rule rule) {
    String reported = l.processId(prefix);
    if (reported != null && !reported.isEmpty()) {
      return reported;
    }
    String name;
    if ("true".equals(l.local(prefix))) {
      name = ProcessIds.VIRTUAL_LOCAL;
    } else if (l.address(prefix) != null) {
      // SkyWalking names the peer from Kubernetes pods/services by IP; Sextant names it UNKNOWN_REMOTE.
      name = ProcessIds.VIRTUAL_REMOTE;
    } else {
      out.refuse("missing_label", rule.meter() + " needs " + prefix + "_process_id, " + prefix + "_local or "
          + prefix + "_address", 1);
      return null;
    }
    String id = ids.get(name);
    if (id == null) {
      out.virtualProcess(batch.service, batch.instance, name);
      id = processIdUnder(batch.service, batch.instance, name);
      ids.put(name, id);
    }
    return id;
  }

  /** SkyWalking's component of a connection: https (129), http (49), tls (130) or tcp (110). */
  static String component(String protocol, String ssl) {
    boolean tls = "true".equals(ssl);
    if ("http".equals(protocol)) {
      return tls ? "https" : "http";
    }
    return tls ? "tls" : "tcp";
  }

  private static Layer layer(String name) {
    if (name == null) {
      return Layer.UNDEFINED;
    }
    for (Layer layer : Layer.values()) {
      if (layer.name().equals(name)) {
        return layer;
      }
    }
    return Layer.UNDEFINED;
  }

  /** What values of one batch are combined by: the rule, the entity, side, component, label and bucket. */
  private record Key(Rule rule, String client, String server, DetectPoint side, String component, String label,
      long bucket, Layer layer) {
    Key withBucket(long b) {
      return new Key(rule, client, server, side, component, label, b, layer);
    }
  }
}
