package io.sextant.receiver.envoy;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.flatbuffers.FlatBufferBuilder;
import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.ListValue;
import com.google.protobuf.NullValue;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import io.sextant.receiver.envoy.PeerMetadata.Workload;
import io.sextant.receiver.envoy.PeerMetadataTest.Node;
import io.sextant.testkit.fuzz.Damaged;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * Fuzzing the Istio peer-metadata parser (jqwik): any bytes (random, a FlatNode built as {@link
 * PeerMetadataTest.Node} builds it with bytes changed, cut or inserted, or a FlatNode whose labels
 * share one value string), any filter-state {@link Any} and any {@link Struct} give a workload or
 * {@link Optional#empty()}, never an exception. What a FlatNode yields is no longer than its buffer,
 * all strings together, so a small buffer cannot decode to gigabytes; an undamaged FlatNode reads
 * back as it was built. A longer run: {@code -Djqwik.tries.default=100000} (docs/reliability.md).
 */
class PeerMetadataProperties {
  @Property
  void anyBytesGiveAWorkloadNoLongerThanTheBuffer(@ForAll("flatNodes") byte[] buffer) {
    Optional<Workload> w = PeerMetadata.fromFlatNode(buffer);
    Statistics.collect(w.isPresent() ? "a workload" : "empty");
    w.ifPresent(workload -> assertThat(chars(workload)).isLessThanOrEqualTo(buffer.length));
  }

  @Property
  void anUndamagedFlatNodeReadsBackAsBuilt(@ForAll("nodes") Node node) {
    Map<String, String> labels = new TreeMap<>(node.labels == null ? Map.of() : node.labels);
    labels.remove("");
    Workload built = new Workload(node.name, node.namespace, labels, node.workloadName, node.clusterId);
    assertThat(PeerMetadata.fromFlatNode(node.build())).isEqualTo(built.isBlank() ? Optional.empty()
        : Optional.of(built));
  }

  @Property
  void anyFilterStateObjectGivesAWorkloadOrNothing(@ForAll("anys") Any any) {
    Optional<Workload> w = PeerMetadata.fromAny(any);
    if (w.isPresent() && !any.getTypeUrl().endsWith("google.protobuf.Struct")) { // else numbers become text
      assertThat(chars(w.get())).isLessThanOrEqualTo(any.getValue().size());
    }
  }

  @Property
  void anyStructGivesItsOwnStringsOrNothing(@ForAll("structs") Struct struct) {
    PeerMetadata.fromStruct(struct).ifPresent(w -> assertThat(w.name())
        .isEqualTo(struct.getFieldsOrDefault("NAME", Value.getDefaultInstance()).getStringValue()));
  }

  private static long chars(Workload w) {
    return w.name().length() + w.namespace().length() + w.workloadName().length() + w.clusterId().length()
        + w.labels().entrySet().stream().mapToLong(e -> e.getKey().length() + e.getValue().length()).sum();
  }

  private static Arbitrary<String> text() {
    return Arbitraries.oneOf(Arbitraries.strings().withCharRange(' ', '~').withChars("é中\u0000").ofMaxLength(40),
        Arbitraries.of("", "reviews", "bookinfo", "app", "service.istio.io/canonical-name", "😀 ü"));
  }

  @Provide
  Arbitrary<Node> nodes() {
    Arbitrary<String> field = text().injectNull(0.3);
    Arbitrary<Map<String, String>> labels = Arbitraries.maps(text(), text()).ofMaxSize(4).injectNull(0.3);
    return Combinators.combine(field, field, labels, field, field, Arbitraries.of(true, false))
        .as((name, namespace, l, workload, cluster, decoys) -> {
          Node n = decoys ? Node.full() : new Node();
          n.name = name;
          n.namespace = namespace;
          n.labels = l;
          n.workloadName = workload;
          n.clusterId = cluster;
          return n;
        });
  }

  @Provide
  Arbitrary<byte[]> flatNodes() {
    Arbitrary<byte[]> damaged = Damaged.bytes(nodes().map(Node::build), 3);
    Arbitrary<byte[]> shared = Combinators.combine(text(), Arbitraries.integers().between(1, 30))
        .as(PeerMetadataProperties::sharedValues);
    return Arbitraries.oneOf(damaged, damaged, shared, Arbitraries.bytes().array(byte[].class).ofMaxSize(200));
  }

  /** A FlatNode whose labels all point at one value string, as FlatBuffers' shared strings allow. */
  private static byte[] sharedValues(String value, int labels) {
    FlatBufferBuilder b = new FlatBufferBuilder(256);
    int v = b.createSharedString(value);
    int[] entries = new int[labels];
    for (int i = 0; i < labels; i++) {
      int key = b.createString("k" + i);
      b.startTable(2);
      b.addOffset(0, key, 0);
      b.addOffset(1, v, 0);
      entries[i] = b.endTable();
    }
    int vector = b.createVectorOfTables(entries);
    int name = b.createString("pod-0");
    b.startTable(12);
    b.addOffset(0, name, 0);
    b.addOffset(2, vector, 0);
    b.finish(b.endTable());
    return b.sizedByteArray();
  }

  @Provide
  Arbitrary<Any> anys() {
    Arbitrary<String> type = Arbitraries.of("type.googleapis.com/google.protobuf.Struct",
        "type.googleapis.com/google.protobuf.BytesValue", "google.protobuf.Struct", "", "type.googleapis.com/x.Y");
    Arbitrary<ByteString> value = Arbitraries.oneOf(
        flatNodes().map(b -> PeerMetadataTest.envoyFilterState(b).getValue()),
        structs().map(Struct::toByteString), flatNodes().map(ByteString::copyFrom));
    return Combinators.combine(type, value).as((t, v) -> Any.newBuilder().setTypeUrl(t).setValue(v).build());
  }

  @Provide
  Arbitrary<Struct> structs() {
    return struct(values(2)).withoutEdgeCases(); // combining the nested ones' edge cases takes minutes
  }

  private static Arbitrary<Struct> struct(Arbitrary<Value> values) {
    Arbitrary<String> key = Arbitraries.oneOf(Arbitraries.of("NAME", "NAMESPACE", "LABELS", "WORKLOAD_NAME",
        "CLUSTER_ID"), text());
    return Arbitraries.maps(key, values).ofMaxSize(4).map(m -> Struct.newBuilder().putAllFields(m).build());
  }

  private static Arbitrary<Value> values(int depth) {
    Arbitrary<Double> number = Arbitraries.oneOf(Arbitraries.doubles(), Arbitraries.of(Double.NaN, -0.0, 1e15,
        Double.POSITIVE_INFINITY, 9.007199254740993E15));
    Arbitrary<Value> scalar = Arbitraries.oneOf(text().map(s -> Value.newBuilder().setStringValue(s).build()),
        number.map(d -> Value.newBuilder().setNumberValue(d).build()),
        Arbitraries.of(true, false).map(b -> Value.newBuilder().setBoolValue(b).build()),
        Arbitraries.of(Value.getDefaultInstance(), Value.newBuilder().setNullValue(NullValue.NULL_VALUE).build()));
    if (depth == 0) {
      return scalar;
    }
    Arbitrary<Value> inner = values(depth - 1);
    return Arbitraries.oneOf(scalar, scalar, struct(inner).map(s -> Value.newBuilder().setStructValue(s).build()),
        inner.list().ofMaxSize(2).map(l -> Value.newBuilder().setListValue(ListValue.newBuilder().addAllValues(l))
            .build()));
  }
}
