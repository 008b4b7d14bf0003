package io.sextant.receiver.envoy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import com.google.flatbuffers.FlatBufferBuilder;
import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.BytesValue;
import com.google.protobuf.Duration;
import com.google.protobuf.Int64Value;
import com.google.protobuf.ListValue;
import com.google.protobuf.NullValue;
import com.google.protobuf.StringValue;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import io.envoyproxy.envoy.data.accesslog.v3.AccessLogCommon;
import io.sextant.receiver.envoy.PeerMetadata.Workload;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

public class PeerMetadataTest {

  // ------------------------------------------------------------------------------------------
  // Test-side FlatNode builder, following istio/proxy extensions/common/node_info.fbs:
  //   table KeyVal  { key:string (key); value:string; }
  //   table FlatNode { name; namespace; labels:[KeyVal]; owner; workload_name;
  //                    platform_metadata:[KeyVal]; istio_version; mesh_id; app_containers:[string];
  //                    cluster_id; instance_ips:[string]; identity; }

  private static final int FLAT_NODE_FIELDS = 12;

  /** All FlatNode fields; null means "not set". */
  public static final class Node {
    String name;
    String namespace;
    Map<String, String> labels;
    String owner;
    String workloadName;
    Map<String, String> platformMetadata;
    String istioVersion;
    String meshId;
    String[] appContainers;
    String clusterId;
    String[] instanceIps;
    String identity;

    public static Node full() {
      Node n = new Node();
      n.name = "reviews-v2-7d9c8f6b5-x2x4z";
      n.namespace = "bookinfo";
      n.labels = new LinkedHashMap<>();
      n.labels.put("app", "reviews");
      n.labels.put("version", "v2");
      n.labels.put("service.istio.io/canonical-name", "reviews");
      n.labels.put("service.istio.io/canonical-revision", "v2");
      n.owner = "kubernetes://apis/apps/v1/namespaces/bookinfo/deployments/reviews-v2";
      n.workloadName = "reviews-v2";
      n.platformMetadata = Map.of("gcp_project", "decoy-project");
      n.istioVersion = "1.23.2";
      n.meshId = "cluster.local";
      n.appContainers = new String[] {"reviews"};
      n.clusterId = "Kubernetes";
      n.instanceIps = new String[] {"10.0.0.7", "fd00::7"};
      n.identity = "spiffe://cluster.local/ns/bookinfo/sa/bookinfo-reviews";
      return n;
    }

    public byte[] build() {
      FlatBufferBuilder b = new FlatBufferBuilder(256);
      int name = str(b, this.name);
      int namespace = str(b, this.namespace);
      int labels = keyVals(b, this.labels);
      int owner = str(b, this.owner);
      int workloadName = str(b, this.workloadName);
      int platformMetadata = keyVals(b, this.platformMetadata);
      int istioVersion = str(b, this.istioVersion);
      int meshId = str(b, this.meshId);
      int appContainers = strings(b, this.appContainers);
      int clusterId = str(b, this.clusterId);
      int instanceIps = strings(b, this.instanceIps);
      int identity = str(b, this.identity);

      b.startTable(FLAT_NODE_FIELDS);
      addIfSet(b, 0, name);
      addIfSet(b, 1, namespace);
      addIfSet(b, 2, labels);
      addIfSet(b, 3, owner);
      addIfSet(b, 4, workloadName);
      addIfSet(b, 5, platformMetadata);
      addIfSet(b, 6, istioVersion);
      addIfSet(b, 7, meshId);
      addIfSet(b, 8, appContainers);
      addIfSet(b, 9, clusterId);
      addIfSet(b, 10, instanceIps);
      addIfSet(b, 11, identity);
      b.finish(b.endTable());
      return b.sizedByteArray();
    }

    private static int str(FlatBufferBuilder b, String s) {
      return s == null ? 0 : b.createString(s);
    }

    private static int strings(FlatBufferBuilder b, String[] values) {
      if (values == null) {
        return 0;
      }
      int[] offsets = new int[values.length];
      for (int i = 0; i < values.length; i++) {
        offsets[i] = b.createString(values[i]);
      }
      return vectorOfOffsets(b, offsets);
    }

    /** Vector of KeyVal tables, sorted by key as the (key) attribute requires. */
    private static int keyVals(FlatBufferBuilder b, Map<String, String> map) {
      if (map == null) {
        return 0;
      }
      int[] offsets = new int[map.size()];
      int i = 0;
      for (Map.Entry<String, String> e : new TreeMap<>(map).entrySet()) {
        int key = b.createString(e.getKey());
        int value = b.createString(e.getValue());
        b.startTable(2);
        b.addOffset(0, key, 0);
        b.addOffset(1, value, 0);
        offsets[i++] = b.endTable();
      }
      return vectorOfOffsets(b, offsets);
    }

    private static int vectorOfOffsets(FlatBufferBuilder b, int[] offsets) {
      b.startVector(4, offsets.length, 4);
      for (int i = offsets.length - 1; i >= 0; i--) {
        b.addOffset(offsets[i]);
      }
      return b.endVector();
    }

    private static void addIfSet(FlatBufferBuilder b, int field, int offset) {
      if (offset != 0) {
        b.addOffset(field, offset, 0);
      }
    }
  }

  /** What Envoy's CelState::serializeAsProto emits: Any.PackFrom(BytesValue{flatbuffer}). */
  public static Any envoyFilterState(byte[] flatbuffer) {
    return Any.pack(BytesValue.of(ByteString.copyFrom(flatbuffer)));
  }

  private static Value s(String v) {
    return Value.newBuilder().setStringValue(v).build();
  }

  // ------------------------------------------------------------------------------------------
  // Legacy FlatNode (Istio < 1.24, wasm.* keys)

  @Test
  void decodesAllFlatNodeFieldsWeUse() {
    Optional<Workload> w = PeerMetadata.fromFlatNode(Node.full().build());

    assertThat(w).isPresent();
    assertThat(w.get().name()).isEqualTo("reviews-v2-7d9c8f6b5-x2x4z");
    assertThat(w.get().namespace()).isEqualTo("bookinfo");
    assertThat(w.get().workloadName()).isEqualTo("reviews-v2");
    assertThat(w.get().clusterId()).isEqualTo("Kubernetes");
    assertThat(w.get().labels())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "app", "reviews",
                "version", "v2",
                "service.istio.io/canonical-name", "reviews",
                "service.istio.io/canonical-revision", "v2"));
  }

  @Test
  void fieldsAreReadFromTheirOwnSlotsNotNeighbours() {
    // Only the fields we do not read are set: nothing may leak into name/workload/cluster/labels.
    Node decoys = Node.full();
    decoys.name = null;
    decoys.namespace = null;
    decoys.labels = null;
    decoys.workloadName = null;
    decoys.clusterId = null;
    assertThat(PeerMetadata.fromFlatNode(decoys.build())).isEmpty();

    // Each read field on its own, every neighbour slot populated with a distinct decoy.
    Node onlyCluster = Node.full();
    onlyCluster.name = null;
    onlyCluster.namespace = null;
    onlyCluster.labels = null;
    onlyCluster.workloadName = null;
    Workload w = PeerMetadata.fromFlatNode(onlyCluster.build()).orElseThrow();
    assertThat(w.clusterId()).isEqualTo("Kubernetes");
    assertThat(w.name()).isEmpty();
    assertThat(w.namespace()).isEmpty();
    assertThat(w.workloadName()).isEmpty();
    assertThat(w.labels()).isEmpty();

    Node onlyWorkload = Node.full();
    onlyWorkload.name = null;
    onlyWorkload.namespace = null;
    onlyWorkload.labels = null;
    onlyWorkload.clusterId = null;
    w = PeerMetadata.fromFlatNode(onlyWorkload.build()).orElseThrow();
    assertThat(w.workloadName()).isEqualTo("reviews-v2");
    assertThat(w.clusterId()).isEmpty();
    assertThat(w.labels()).doesNotContainKey("gcp_project");
  }

  @Test
  void absentFlatNodeFieldsBecomeEmpty() {
    Node n = new Node();
    n.name = "ratings-v1-abc";
    n.namespace = "bookinfo";
    Workload w = PeerMetadata.fromFlatNode(n.build()).orElseThrow();

    assertThat(w).isEqualTo(new Workload("ratings-v1-abc", "bookinfo", Map.of(), "", ""));
  }

  @Test
  void emptyLabelVectorAndNonAsciiStrings() {
    Node n = new Node();
    n.name = "pod-ü-数据";
    n.labels = Map.of();
    n.workloadName = "wl";
    Workload w = PeerMetadata.fromFlatNode(n.build()).orElseThrow();

    assertThat(w.name()).isEqualTo("pod-ü-数据");
    assertThat(w.labels()).isEmpty();
    assertThat(w.workloadName()).isEqualTo("wl");
  }

  @Test
  void emptyFlatNodeTableIsEmpty() {
    assertThat(PeerMetadata.fromFlatNode(new Node().build())).isEmpty();
  }

  @Test
  void fromAnyUnwrapsBytesValueAsEnvoyPacksIt() {
    Any any = envoyFilterState(Node.full().build());
    assertThat(any.getTypeUrl()).isEqualTo("type.googleapis.com/google.protobuf.BytesValue");

    Workload w = PeerMetadata.fromAny(any).orElseThrow();
    assertThat(w.name()).isEqualTo("reviews-v2-7d9c8f6b5-x2x4z");
    assertThat(w.namespace()).isEqualTo("bookinfo");
    assertThat(w.labels()).containsEntry("app", "reviews").containsEntry("version", "v2");
    assertThat(w.workloadName()).isEqualTo("reviews-v2");
    assertThat(w.clusterId()).isEqualTo("Kubernetes");
  }

  @Test
  void readsWasmPeerFromAccessLogFilterStateAfterWireRoundTrip() throws Exception {
    AccessLogCommon sent =
        AccessLogCommon.newBuilder()
            .putFilterStateObjects("wasm.upstream_peer", envoyFilterState(Node.full().build()))
            .putFilterStateObjects(
                "wasm.upstream_peer_id",
                Any.pack(BytesValue.of(ByteString.copyFromUtf8("sidecar~10.0.0.7~x~bookinfo"))))
            .build();
    AccessLogCommon received = AccessLogCommon.parseFrom(sent.toByteArray());

    assertThat(PeerMetadata.fromAny(received.getFilterStateObjectsOrThrow("wasm.upstream_peer")))
        .map(Workload::workloadName)
        .hasValue("reviews-v2");
    // The *_id companion is a plain string, not a FlatNode.
    assertThat(PeerMetadata.fromAny(received.getFilterStateObjectsOrThrow("wasm.upstream_peer_id")))
        .isEmpty();
  }

  @Test
  void handCraftedMinimalBufferIsRead() {
    // root uoffset -> table@16; vtable@4 {vtsize=6, objsize=8, name@4}; name -> string@24 "abc\0"
    byte[] bytes =
        le(32)
            .putInt(0, 16)
            .putShort(4, (short) 6)
            .putShort(6, (short) 8)
            .putShort(8, (short) 4)
            .putInt(16, 12)
            .putInt(20, 4)
            .putInt(24, 3)
            .put(28, (byte) 'a')
            .put(29, (byte) 'b')
            .put(30, (byte) 'c')
            .put(31, (byte) 0)
            .array();
    assertThat(PeerMetadata.fromFlatNode(bytes)).map(Workload::name).hasValue("abc");

    bytes[31] = 'x'; // no NUL terminator
    assertThat(PeerMetadata.fromFlatNode(bytes)).isEmpty();
    bytes[31] = 0;
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(24, 4); // length runs past the end
    assertThat(PeerMetadata.fromFlatNode(bytes)).isEmpty();
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(24, -1); // absurd length
    assertThat(PeerMetadata.fromFlatNode(bytes)).isEmpty();
  }

  @Test
  void hugeOrDanglingLabelVectorIsRejected() {
    // root -> table@16; vtable@4 {vtsize=10, objsize=8, name=0, namespace=0, labels@4}; labels->@24
    ByteBuffer buf =
        le(32)
            .putInt(0, 16)
            .putShort(4, (short) 10)
            .putShort(6, (short) 8)
            .putShort(12, (short) 4)
            .putInt(16, 12)
            .putInt(20, 4)
            .putInt(24, Integer.MAX_VALUE);
    assertThat(PeerMetadata.fromFlatNode(buf.array())).isEmpty();

    buf.putInt(24, 1).putInt(28, 1_000_000); // one element pointing far outside the buffer
    assertThat(PeerMetadata.fromFlatNode(buf.array())).isEmpty();

    buf.putInt(28, 0xFFFFFFFC); // uoffset that would wrap around to a negative position
    assertThat(PeerMetadata.fromFlatNode(buf.array())).isEmpty();
  }

  @Test
  void labelsSharingOneStringAreRejectedNotCopied() {
    // Found by PeerMetadataProperties (shrunk): 18 labels pointing at one shared 26-byte value read
    // as 18 copies, more text than the buffer holds; 20,000 labels on a 100 kB value (a 580 kB
    // buffer) ran out of a 512 MB heap.
    FlatBufferBuilder b = new FlatBufferBuilder(256);
    int value = b.createSharedString(" ".repeat(26));
    int[] entries = new int[18];
    for (int i = 0; i < entries.length; i++) {
      int key = b.createString("k" + i);
      b.startTable(2);
      b.addOffset(0, key, 0);
      b.addOffset(1, value, 0);
      entries[i] = b.endTable();
    }
    int labels = b.createVectorOfTables(entries);
    int name = b.createString("pod-0");
    b.startTable(FLAT_NODE_FIELDS);
    b.addOffset(0, name, 0);
    b.addOffset(2, labels, 0);
    b.finish(b.endTable());
    assertThat(PeerMetadata.fromFlatNode(b.sizedByteArray())).isEmpty();

    // The same labels, each value written once as Istio writes them, are read.
    Node node = new Node();
    node.name = "pod-0";
    node.labels = new LinkedHashMap<>();
    for (int i = 0; i < entries.length; i++) {
      node.labels.put("k" + i, " ".repeat(26));
    }
    assertThat(PeerMetadata.fromFlatNode(node.build())).map(w -> w.labels().size()).hasValue(18);
  }

  @Test
  void badVtablesAreRejected() {
    byte[] good = Node.full().build();
    ByteBuffer bb = ByteBuffer.wrap(good.clone()).order(ByteOrder.LITTLE_ENDIAN);
    int table = bb.getInt(0);

    bb.putInt(table, table + 1000); // soffset to a vtable before the start of the buffer
    assertThat(PeerMetadata.fromFlatNode(bb.array())).isEmpty();

    bb.putInt(table, -1_000_000); // soffset to a vtable beyond the end
    assertThat(PeerMetadata.fromFlatNode(bb.array())).isEmpty();

    bb.putInt(0, good.length + 8); // root offset beyond the end
    assertThat(PeerMetadata.fromFlatNode(bb.array())).isEmpty();

    bb.putInt(0, -4); // root offset with the sign bit set
    assertThat(PeerMetadata.fromFlatNode(bb.array())).isEmpty();
  }

  @Test
  void garbageBytesAreEmpty() {
    assertThat(PeerMetadata.fromFlatNode(null)).isEmpty();
    assertThat(PeerMetadata.fromFlatNode(new byte[0])).isEmpty();
    assertThat(PeerMetadata.fromFlatNode(new byte[] {1, 2, 3})).isEmpty();
    assertThat(PeerMetadata.fromFlatNode(new byte[64])).isEmpty();
    byte[] ones = new byte[64];
    Arrays.fill(ones, (byte) 0xFF);
    assertThat(PeerMetadata.fromFlatNode(ones)).isEmpty();
    assertThat(
            PeerMetadata.fromFlatNode(
                "this is definitely not a flatbuffer".getBytes(StandardCharsets.UTF_8)))
        .isEmpty();
    assertThat(
            PeerMetadata.fromAny(
                Any.pack(BytesValue.of(ByteString.copyFromUtf8("{\"NAME\":\"json-not-fb\"}")))))
        .isEmpty();
  }

  @Test
  void randomAndMutatedBuffersNeverThrow() {
    Random random = new Random(20240601L);
    byte[] good = Node.full().build();
    for (int i = 0; i < 20_000; i++) {
      byte[] junk = new byte[random.nextInt(200)];
      random.nextBytes(junk);
      assertThatCode(() -> PeerMetadata.fromFlatNode(junk)).doesNotThrowAnyException();

      byte[] mutated = good.clone();
      for (int k = 1 + random.nextInt(4); k > 0; k--) {
        mutated[random.nextInt(mutated.length)] = (byte) random.nextInt(256);
      }
      assertThatCode(() -> PeerMetadata.fromFlatNode(mutated)).doesNotThrowAnyException();
      assertThatCode(() -> PeerMetadata.fromAny(envoyFilterState(mutated)))
          .doesNotThrowAnyException();
    }
  }

  @Test
  void truncatedBuffersAreEmpty() {
    Node node = Node.full();
    // The builder writes back to front, so the first string created (name) ends the buffer. A
    // 27-byte name plus its NUL needs no alignment padding, so every cut loses a meaningful byte.
    node.name = "reviews-v2-7d9c8f6b5-x2x4zz";
    byte[] good = node.build();
    assertThat(good[good.length - 1]).isZero();
    assertThat(good[good.length - 2]).isEqualTo((byte) 'z');
    assertThat(PeerMetadata.fromFlatNode(good)).isPresent();
    for (int len = 0; len < good.length; len++) {
      byte[] cut = Arrays.copyOf(good, len);
      assertThat(PeerMetadata.fromFlatNode(cut)).as("truncated to %d bytes", len).isEmpty();
      assertThat(PeerMetadata.fromAny(envoyFilterState(cut))).isEmpty();
    }
    // Truncation of the serialized BytesValue/Any payload itself.
    ByteString packed = envoyFilterState(good).getValue();
    Any cutAny =
        Any.newBuilder()
            .setTypeUrl("type.googleapis.com/google.protobuf.BytesValue")
            .setValue(packed.substring(0, packed.size() / 2))
            .build();
    assertThat(PeerMetadata.fromAny(cutAny)).isEmpty();
  }

  // ------------------------------------------------------------------------------------------
  // Struct (Istio >= 1.24 upstream_peer/downstream_peer, and node metadata)

  private static Struct istio124Peer() {
    Struct labels =
        Struct.newBuilder()
            .putFields("service.istio.io/canonical-name", s("productpage"))
            .putFields("service.istio.io/canonical-revision", s("v1"))
            .putFields("app", s("productpage"))
            .putFields("version", s("v1"))
            .build();
    return Struct.newBuilder()
        .putFields("NAME", s("productpage-v1-6b746f74dc-9stvs"))
        .putFields("NAMESPACE", s("bookinfo"))
        .putFields("WORKLOAD_NAME", s("productpage-v1"))
        .putFields("CLUSTER_ID", s("Kubernetes"))
        .putFields("OWNER", s("kubernetes://apis/apps/v1/namespaces/bookinfo/deployments/p-v1"))
        .putFields("LABELS", Value.newBuilder().setStructValue(labels).build())
        .build();
  }

  @Test
  void decodesIstio124Struct() {
    Workload w = PeerMetadata.fromStruct(istio124Peer()).orElseThrow();

    assertThat(w.name()).isEqualTo("productpage-v1-6b746f74dc-9stvs");
    assertThat(w.namespace()).isEqualTo("bookinfo");
    assertThat(w.workloadName()).isEqualTo("productpage-v1");
    assertThat(w.clusterId()).isEqualTo("Kubernetes");
    assertThat(w.labels())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "service.istio.io/canonical-name", "productpage",
                "service.istio.io/canonical-revision", "v1",
                "app", "productpage",
                "version", "v1"));
  }

  @Test
  void fromAnyDispatchesPackedStruct() throws Exception {
    Any any = Any.pack(istio124Peer());
    assertThat(any.getTypeUrl()).isEqualTo("type.googleapis.com/google.protobuf.Struct");

    AccessLogCommon received =
        AccessLogCommon.parseFrom(
            AccessLogCommon.newBuilder()
                .putFilterStateObjects("downstream_peer", any)
                .build()
                .toByteArray());
    assertThat(PeerMetadata.fromAny(received.getFilterStateObjectsOrThrow("downstream_peer")))
        .isEqualTo(PeerMetadata.fromStruct(istio124Peer()))
        .isPresent();
  }

  @Test
  void structWithOnlyEmptyLabelsOrForeignKeysIsEmpty() {
    // Istio always adds a LABELS struct, even when it has nothing to put in it.
    Struct onlyLabels =
        Struct.newBuilder()
            .putFields("LABELS", Value.newBuilder().setStructValue(Struct.getDefaultInstance()).build())
            .putFields("OWNER", s("kubernetes://apis/apps/v1/namespaces/x/deployments/y"))
            .build();
    assertThat(PeerMetadata.fromStruct(onlyLabels)).isEmpty();
    assertThat(PeerMetadata.fromStruct(Struct.getDefaultInstance())).isEmpty();
    assertThat(PeerMetadata.fromStruct(null)).isEmpty();
  }

  @Test
  void structToleratesOddValueKinds() {
    Struct labels =
        Struct.newBuilder()
            .putFields("app", s("svc"))
            .putFields("replicas", Value.newBuilder().setNumberValue(3).build())
            .putFields("canary", Value.newBuilder().setBoolValue(true).build())
            .putFields("nothing", Value.newBuilder().setNullValue(NullValue.NULL_VALUE).build())
            .putFields("list", Value.newBuilder().setListValue(ListValue.getDefaultInstance()).build())
            .build();
    Struct st =
        Struct.newBuilder()
            .putFields("NAME", Value.newBuilder().setNumberValue(42).build()) // not a string
            .putFields("NAMESPACE", s("ns"))
            .putFields("LABELS", Value.newBuilder().setStructValue(labels).build())
            .build();

    Workload w = PeerMetadata.fromStruct(st).orElseThrow();
    assertThat(w.name()).isEmpty();
    assertThat(w.namespace()).isEqualTo("ns");
    assertThat(w.workloadName()).isEmpty();
    assertThat(w.clusterId()).isEmpty();
    assertThat(w.labels())
        .containsExactlyInAnyOrderEntriesOf(Map.of("app", "svc", "replicas", "3", "canary", "true"));
  }

  // ------------------------------------------------------------------------------------------
  // Wrong types

  @Test
  void wrongOrUnparseableAnyIsEmpty() {
    assertThat(PeerMetadata.fromAny(null)).isEmpty();
    assertThat(PeerMetadata.fromAny(Any.getDefaultInstance())).isEmpty();
    assertThat(PeerMetadata.fromAny(Any.pack(StringValue.of("reviews.bookinfo")))).isEmpty();
    assertThat(PeerMetadata.fromAny(Any.pack(Int64Value.of(42)))).isEmpty();
    assertThat(
            PeerMetadata.fromAny(Any.pack(Duration.newBuilder().setSeconds(5).setNanos(7).build())))
        .isEmpty();
    // A Struct Any that is in fact not a Struct.
    assertThat(
            PeerMetadata.fromAny(
                Any.newBuilder()
                    .setTypeUrl("type.googleapis.com/google.protobuf.Struct")
                    .setValue(ByteString.copyFrom(new byte[] {(byte) 0xFF, (byte) 0xFF, 0x0F}))
                    .build()))
        .isEmpty();
    // A BytesValue Any whose payload is not a valid protobuf message.
    assertThat(
            PeerMetadata.fromAny(
                Any.newBuilder()
                    .setTypeUrl("type.googleapis.com/google.protobuf.BytesValue")
                    .setValue(ByteString.copyFrom(new byte[] {0x0A, 0x7F, 1, 2}))
                    .build()))
        .isEmpty();
    // A BytesValue-typed Any that actually carries a Struct: not a FlatNode either.
    assertThat(
            PeerMetadata.fromAny(
                Any.newBuilder()
                    .setTypeUrl("type.googleapis.com/google.protobuf.BytesValue")
                    .setValue(istio124Peer().toByteString())
                    .build()))
        .isEmpty();
    // A Struct-typed Any that carries the legacy BytesValue: parses as a Struct with no fields.
    assertThat(
            PeerMetadata.fromAny(
                Any.newBuilder()
                    .setTypeUrl("type.googleapis.com/google.protobuf.Struct")
                    .setValue(envoyFilterState(Node.full().build()).getValue())
                    .build()))
        .isEmpty();
  }

  private static ByteBuffer le(int size) {
    return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
  }
}
