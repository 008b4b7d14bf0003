package io.sextant.receiver.ebpf.meter;

import static io.sextant.receiver.ebpf.RoverArbitraries.offTheWire;
import static io.sextant.receiver.ebpf.RoverArbitraries.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.metric.RoverMeterRules;
import io.sextant.api.model.ProcessSampleRecord;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;
import org.apache.skywalking.apm.network.language.agent.v3.Label;
import org.apache.skywalking.apm.network.language.agent.v3.MeterBucketValue;
import org.apache.skywalking.apm.network.language.agent.v3.MeterData;
import org.apache.skywalking.apm.network.language.agent.v3.MeterDataCollection;
import org.apache.skywalking.apm.network.language.agent.v3.MeterHistogram;
import org.apache.skywalking.apm.network.language.agent.v3.MeterSingleValue;

/**
 * Fuzzing the evaluation of Rover's meters (jqwik): {@code MeterDataCollection}s of single values,
 * histograms and empty meters, named by the rules or not, with any labels, values and buckets, as
 * they come off the wire, also with bytes changed, give samples or are refused through the engine's
 * output by reason, never an exception; every sample is of a rule's metric and not negative. A
 * longer run: {@code -Djqwik.tries.default=100000} (docs/reliability.md).
 */
class RoverMeterEngineProperties {
  /** Rover's labels, each with two values it sends. */
  private static final List<List<String>> LABELS = List.of(List.of("client_process_id", "p-1", ""),
      List.of("server_process_id", "p-2", ""), List.of("client_local", "true", "false"),
      List.of("server_local", "true", "false"), List.of("client_address", "10.0.0.7:80", ""),
      List.of("server_address", "10.0.0.8:80", ""), List.of("side", "client", "server"),
      List.of("protocol", "http", "tcp"), List.of("is_ssl", "true", "false"), List.of("process_name", "envoy", ""),
      List.of("layer", "MESH", "GENERAL"), List.of("code", "200", "503"), List.of("uri", "/pay", "/"));
  private static final String ABSENT = "\u0000absent";
  private final RoverMeterEngine engine = new RoverMeterEngine(1024);
  private final RelationBounds relations = new RelationBounds(3, 100);

  @Property
  void everyMeterGivesSamplesOrIsRefused(@ForAll("collections") MeterDataCollection collection) {
    MeterBatch batch = new MeterBatch();
    collection.getMeterDataList().forEach(batch::add);
    engine.evaluate(batch, 1_790_000_000_000L, new RoverMeterEngine.Output() {
      @Override
      public boolean sample(ProcessSampleRecord sample) {
        Statistics.collect("sample");
        assertThat(RoverMeterRules.RULES).anyMatch(r -> r.metric().equals(sample.metric()));
        assertThat(sample.value()).isNotNegative();
        return true;
      }

      @Override
      public void refuse(String reason, String detail, long count) {
        Statistics.collect(reason);
      }

      @Override
      public void unmapped(long count) {
        Statistics.collect("unmapped");
      }

      @Override
      public void virtualProcess(String service, String instance, String name) {}

      @Override
      public boolean admitRelation(String localProcessId, String peer) {
        return relations.admit(0, localProcessId, peer);
      }
    });
  }

  @Provide
  Arbitrary<MeterDataCollection> collections() {
    // Each of Rover's labels: a value it sends, any value, or absent.
    Arbitrary<List<Label>> labels = Combinators.combine(LABELS.stream().map(l -> Arbitraries.frequencyOf(
        Tuple.of(6, Arbitraries.of(l.get(1), l.get(2))), Tuple.of(1, text()), Tuple.of(2, Arbitraries.just(ABSENT))))
        .toList()).as(values -> {
          List<Label> out = new ArrayList<>();
          for (int i = 0; i < values.size(); i++) {
            if (!ABSENT.equals(values.get(i))) {
              out.add(Label.newBuilder().setName(LABELS.get(i).get(0)).setValue(values.get(i)).build());
            }
          }
          return out;
        });
    Arbitrary<Double> number = Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.doubles()), Tuple.of(1,
        Arbitraries.of(Double.NaN, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY, -0.0, 1e300, 0.4)));
    Arbitrary<MeterBucketValue> bucket = Combinators.combine(number, Arbitraries.longs(), Arbitraries.of(true, false))
        .as((b, n, negativeInfinity) -> MeterBucketValue.newBuilder().setBucket(b).setCount(n)
            .setIsNegativeInfinity(negativeInfinity).build());
    Arbitrary<MeterData> single = Combinators.combine(name(false), labels, number).as((n, l, v) -> MeterData
        .newBuilder().setSingleValue(MeterSingleValue.newBuilder().setName(n).addAllLabels(l).setValue(v)).build());
    Arbitrary<MeterData> histogram = Combinators.combine(name(true), labels, bucket.list().ofMaxSize(4))
        .as((n, l, b) -> MeterData.newBuilder().setHistogram(MeterHistogram.newBuilder().setName(n).addAllLabels(l)
            .addAllValues(b)).build());
    Arbitrary<MeterData> meter = Combinators.combine(Arbitraries.frequencyOf(Tuple.of(4, single),
        Tuple.of(2, histogram), Tuple.of(1, Arbitraries.just(MeterData.getDefaultInstance()))), text(), text(),
        Arbitraries.longs()).as((m, service, instance, time) -> m.toBuilder().setService(service)
            .setServiceInstance(instance).setTimestamp(time).build());
    Arbitrary<MeterDataCollection> collection = meter.list().ofMaxSize(6)
        .map(ms -> MeterDataCollection.newBuilder().addAllMeterData(ms).build());
    return offTheWire(collection, MeterDataCollection.parser());
  }

  /** Mostly the meter of a rule of the kind (histogram or not), else any meter or any name. */
  private static Arbitrary<String> name(boolean histogram) {
    List<String> all = RoverMeterRules.RULES.stream().map(RoverMeterRules.Rule::meter).toList();
    List<String> ofKind = RoverMeterRules.RULES.stream()
        .filter(r -> histogram == (r.function() == RoverMeterRules.Aggregation.HISTOGRAM_PERCENTILE))
        .map(RoverMeterRules.Rule::meter).toList();
    return Arbitraries.frequencyOf(Tuple.of(8, Arbitraries.of(ofKind)), Tuple.of(1, Arbitraries.of(all)),
        Tuple.of(1, text()));
  }
}
