package io.sextant.receiver.envoy;

import com.google.flatbuffers.Table;
import com.google.protobuf.Any;
import com.google.protobuf.BytesValue;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Decodes the peer workload metadata that Istio sidecars leave in Envoy access-log filter state.
 *
 * <p>Two wire forms exist:
 *
 * <ul>
 *   <li>Istio &lt; 1.24, keys {@code wasm.upstream_peer} / {@code wasm.downstream_peer}: the {@link
 *       Any} packs a {@code google.protobuf.BytesValue} whose bytes are a FlatBuffer of Istio's
 *       {@code Wasm.Common.FlatNode} table ({@code extensions/common/node_info.fbs} in istio/proxy).
 *   <li>Istio &ge; 1.24, keys {@code upstream_peer} / {@code downstream_peer}: the {@link Any} packs a
 *       {@code google.protobuf.Struct} with {@code NAME}, {@code NAMESPACE}, {@code LABELS}, {@code
 *       WORKLOAD_NAME}, {@code CLUSTER_ID}, ... (the same keys as Istio proxy node metadata).
 * </ul>
 *
 * <p>Every method is total: malformed, truncated or foreign input yields {@link Optional#empty()},
 * never an exception. A result is also empty when the input carries none of the fields we read.
 */
public final class PeerMetadata {

  /** Parsed peer workload metadata, whatever its wire form. Empty strings / empty map when absent. */
  public record Workload(
      String name,
      String namespace,
      Map<String, String> labels,
      String workloadName,
      String clusterId) {
    public Workload {
      name = name == null ? "" : name;
      namespace = namespace == null ? "" : namespace;
      labels = labels == null ? Map.of() : Map.copyOf(labels);
      workloadName = workloadName == null ? "" : workloadName;
      clusterId = clusterId == null ? "" : clusterId;
    }

    boolean isBlank() {
      return name.isEmpty()
          && namespace.isEmpty()
          && labels.isEmpty()
          && workloadName.isEmpty()
          && clusterId.isEmpty();
    }
  }

  static final String STRUCT_TYPE = "google.protobuf.Struct";
  static final String BYTES_VALUE_TYPE = "google.protobuf.BytesValue";

  // Struct / node-metadata keys (istio/proxy extensions/common/metadata_object.h).
  static final String KEY_NAME = "NAME";
  static final String KEY_NAMESPACE = "NAMESPACE";
  static final String KEY_LABELS = "LABELS";
  static final String KEY_WORKLOAD_NAME = "WORKLOAD_NAME";
  static final String KEY_CLUSTER_ID = "CLUSTER_ID";

  private PeerMetadata() {}

  /** Istio &ge; 1.24 peer metadata, or proxy node metadata, as a {@link Struct}. */
  public static Optional<Workload> fromStruct(Struct s) {
    if (s == null) {
      return Optional.empty();
    }
    try {
      Map<String, Value> fields = s.getFieldsMap();
      Map<String, String> labels = new LinkedHashMap<>();
      Value labelsValue = fields.get(KEY_LABELS);
      if (labelsValue != null && labelsValue.hasStructValue()) {
        for (Map.Entry<String, Value> e : labelsValue.getStructValue().getFieldsMap().entrySet()) {
          String v = scalar(e.getValue());
          if (!e.getKey().isEmpty() && v != null) {
            labels.put(e.getKey(), v);
          }
        }
      }
      Workload w =
          new Workload(
              string(fields.get(KEY_NAME)),
              string(fields.get(KEY_NAMESPACE)),
              labels,
              string(fields.get(KEY_WORKLOAD_NAME)),
              string(fields.get(KEY_CLUSTER_ID)));
      return w.isBlank() ? Optional.empty() : Optional.of(w);
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * Decodes a filter-state object: a packed {@code Struct} goes through {@link #fromStruct}; a packed
   * {@code BytesValue} (and, as a best effort, any other type) is unwrapped and read as a legacy
   * FlatNode.
   */
  public static Optional<Workload> fromAny(Any any) {
    if (any == null) {
      return Optional.empty();
    }
    try {
      String type = typeName(any.getTypeUrl());
      if (STRUCT_TYPE.equals(type)) {
        return fromStruct(Struct.parseFrom(any.getValue()));
      }
      // BytesValue is what Envoy's CelState serializes to; for unknown types, reading the payload as
      // a BytesValue is harmless: foreign payloads either fail to parse or fail FlatNode validation.
      BytesValue bytes = BytesValue.parseFrom(any.getValue());
      return fromFlatNode(bytes.getValue().toByteArray());
    } catch (InvalidProtocolBufferException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * Legacy ({@code wasm.*}) form: a FlatBuffer whose root is {@code Wasm.Common.FlatNode}. Istio writes
   * each string once, so the strings read hold fewer bytes together than the buffer; a buffer that
   * yields more (strings shared or overlapping) is refused, else labels all pointing at one long
   * string would make a small buffer decode to gigabytes.
   */
  public static Optional<Workload> fromFlatNode(byte[] flatbuffer) {
    if (flatbuffer == null || flatbuffer.length < MIN_BUFFER_SIZE) {
      return Optional.empty();
    }
    try {
      ByteBuffer bb = ByteBuffer.wrap(flatbuffer).order(ByteOrder.LITTLE_ENDIAN);
      int[] stringBytesLeft = {flatbuffer.length};
      CheckedTable node = new CheckedTable(stringBytesLeft);
      node.init(bb, CheckedTable.follow(bb, 0));

      Map<String, String> labels = new LinkedHashMap<>();
      int count = node.tableVectorLength(FlatNode.LABELS);
      CheckedTable kv = new CheckedTable(stringBytesLeft);
      for (int i = 0; i < count; i++) {
        kv.init(bb, node.tableVectorElement(FlatNode.LABELS, i));
        String key = kv.string(KeyVal.KEY);
        if (!key.isEmpty()) {
          labels.put(key, kv.string(KeyVal.VALUE));
        }
      }
      Workload w =
          new Workload(
              node.string(FlatNode.NAME),
              node.string(FlatNode.NAMESPACE),
              labels,
              node.string(FlatNode.WORKLOAD_NAME),
              node.string(FlatNode.CLUSTER_ID));
      return w.isBlank() ? Optional.empty() : Optional.of(w);
    } catch (RuntimeException e) {
      // Malformed (our own checks), or anything the flatbuffers runtime / ByteBuffer rejects.
      return Optional.empty();
    }
  }

  private static String typeName(String typeUrl) {
    if (typeUrl == null) {
      return "";
    }
    int slash = typeUrl.lastIndexOf('/');
    return slash < 0 ? typeUrl : typeUrl.substring(slash + 1);
  }

  private static String string(Value v) {
    return v != null && v.hasStringValue() ? v.getStringValue() : "";
  }

  /** Label values are strings on the wire; numbers and booleans are tolerated. */
  private static String scalar(Value v) {
    switch (v.getKindCase()) {
      case STRING_VALUE:
        return v.getStringValue();
      case BOOL_VALUE:
        return String.valueOf(v.getBoolValue());
      case NUMBER_VALUE:
        double d = v.getNumberValue();
        if (d == Math.rint(d) && !Double.isInfinite(d) && Math.abs(d) < 1e15) {
          return Long.toString((long) d);
        }
        return Double.toString(d);
      default:
        return null;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // FlatBuffers access.

  /** Root uoffset (4) + root table soffset (4) + smallest vtable (4). */
  private static final int MIN_BUFFER_SIZE = 12;

  /**
   * Vtable slots (byte offsets into the vtable: 4 + 2 * field index) of {@code table FlatNode} in
   * istio/proxy {@code extensions/common/node_info.fbs} (identical in 1.20 - 1.23):
   *
   * <pre>
   *  0 name:string           4 workload_name:string        8 app_containers:[string]
   *  1 namespace:string      5 platform_metadata:[KeyVal]  9 cluster_id:string
   *  2 labels:[KeyVal]       6 istio_version:string       10 instance_ips:[string]
   *  3 owner:string          7 mesh_id:string             11 identity:string
   * </pre>
   */
  static final class FlatNode {
    static final int NAME = slot(0);
    static final int NAMESPACE = slot(1);
    static final int LABELS = slot(2);
    static final int OWNER = slot(3);
    static final int WORKLOAD_NAME = slot(4);
    static final int PLATFORM_METADATA = slot(5);
    static final int ISTIO_VERSION = slot(6);
    static final int MESH_ID = slot(7);
    static final int APP_CONTAINERS = slot(8);
    static final int CLUSTER_ID = slot(9);
    static final int INSTANCE_IPS = slot(10);
    static final int IDENTITY = slot(11);

    private FlatNode() {}
  }

  /** {@code table KeyVal { key:string (key); value:string; }}. */
  static final class KeyVal {
    static final int KEY = slot(0);
    static final int VALUE = slot(1);

    private KeyVal() {}
  }

  private static int slot(int fieldIndex) {
    return 4 + 2 * fieldIndex;
  }

  /** Raised internally for any structural violation; never escapes this class. */
  private static final class Malformed extends RuntimeException {
    private static final Malformed INSTANCE = new Malformed();

    private Malformed() {
      super("malformed FlatBuffer", null, false, false);
    }
  }

  /**
   * A {@link Table} whose every read is bounds-checked against the buffer first (in the spirit of the
   * C++ {@code flatbuffers::Verifier}), so garbage input is rejected rather than decoded as nonsense
   * or allowed to index outside the buffer.
   */
  private static final class CheckedTable extends Table {
    private int objectSize;
    /** Bytes the strings of this buffer may still take, shared by all tables read from it. */
    private final int[] stringBytesLeft;

    CheckedTable(int[] stringBytesLeft) {
      this.stringBytesLeft = stringBytesLeft;
    }

    void init(ByteBuffer buf, int pos) {
      int limit = buf.limit();
      if (pos < 0 || (long) pos + 4 > limit) {
        throw Malformed.INSTANCE;
      }
      long vtable = (long) pos - buf.getInt(pos); // soffset_t, signed
      if (vtable < 0 || vtable + 4 > limit) {
        throw Malformed.INSTANCE;
      }
      int vtableSize = Short.toUnsignedInt(buf.getShort((int) vtable));
      int tableSize = Short.toUnsignedInt(buf.getShort((int) vtable + 2));
      if (vtableSize < 4 || (vtableSize & 1) != 0 || vtable + vtableSize > limit) {
        throw Malformed.INSTANCE;
      }
      if (tableSize < 4 || (long) pos + tableSize > limit) {
        throw Malformed.INSTANCE;
      }
      __reset(pos, buf);
      objectSize = tableSize;
    }

    /** Field offset within the table for a uoffset-typed field, 0 if absent. */
    private int field(int vtableSlot) {
      int o = __offset(vtableSlot);
      if (o == 0) {
        return 0;
      }
      if (o < 4 || o + 4 > objectSize) {
        throw Malformed.INSTANCE;
      }
      return o;
    }

    String string(int vtableSlot) {
      int o = field(vtableSlot);
      if (o == 0) {
        return "";
      }
      int str = follow(bb, bb_pos + o);
      long len = Integer.toUnsignedLong(bb.getInt(str));
      long terminator = str + 4L + len;
      if (terminator >= bb.limit() || bb.get((int) terminator) != 0 || len > stringBytesLeft[0]) {
        throw Malformed.INSTANCE;
      }
      stringBytesLeft[0] -= (int) len;
      return __string(bb_pos + o);
    }

    int tableVectorLength(int vtableSlot) {
      int o = field(vtableSlot);
      if (o == 0) {
        return 0;
      }
      int vec = follow(bb, bb_pos + o);
      long n = Integer.toUnsignedLong(bb.getInt(vec));
      if (vec + 4L + n * 4L > bb.limit()) {
        throw Malformed.INSTANCE;
      }
      int len = __vector_len(o);
      if (len != n) {
        throw Malformed.INSTANCE;
      }
      return len;
    }

    /** Absolute position of the i-th table in a vector of tables; call after tableVectorLength. */
    int tableVectorElement(int vtableSlot, int i) {
      int o = field(vtableSlot);
      return follow(bb, __vector(o) + i * 4);
    }

    /** Target of the uoffset_t (unsigned, forward) stored at {@code at}. */
    static int follow(ByteBuffer buf, int at) {
      if (at < 0 || (long) at + 4 > buf.limit()) {
        throw Malformed.INSTANCE;
      }
      long target = at + Integer.toUnsignedLong(buf.getInt(at));
      if (target + 4 > buf.limit()) {
        throw Malformed.INSTANCE;
      }
      return (int) target;
    }
  }
}
