package io.sextant.receiver.mesh;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.InvalidProtocolBufferException;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.skywalking.apm.network.common.v3.KeyStringValuePair;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetric;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetrics;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetrics;

/**
 * Differential fuzzing of the hand-written wire reader against protobuf-java (jqwik): valid
 * messages damaged at random (bytes changed, cut, inserted) are refused by our reader exactly when
 * protobuf-java refuses them, and never with anything but {@link WireReader.Malformed}. A longer
 * run: {@code -Djqwik.tries.default=100000} (docs/reliability.md).
 */
class WireReaderProperties {
  @Property
  void damagedMessagesAreRefusedExactlyWhenProtobufRefusesThem(@ForAll("damaged") byte[] message) {
    boolean protobufRefuses;
    try {
      ServiceMeshMetrics.parseFrom(message);
      protobufRefuses = false;
    } catch (InvalidProtocolBufferException e) {
      protobufRefuses = true;
    }
    boolean oursRefuses;
    try {
      MessageLayout layout = new MessageLayout();
      layout.read(message);
      WireMetric metric = new WireMetric(new NameTable(16), 512);
      for (int r = 0; r < layout.count; r++) {
        WireReader in = new WireReader(message, layout.records[r * 2], layout.records[r * 2 + 1]);
        if (layout.kind == MessageLayout.Kind.HTTP) {
          metric.readHttp(in, layout.records[r * 2 + 1]);
        } else {
          metric.readTcp(in, layout.records[r * 2 + 1]);
        }
      }
      oursRefuses = false;
    } catch (WireReader.Malformed e) {
      oursRefuses = true;
    }
    assertThat(oursRefuses).as("refused by Sextant's reader").isEqualTo(protobufRefuses);
  }

  @Provide
  Arbitrary<byte[]> damaged() {
    Arbitrary<String> name = Arbitraries.oneOf(Arbitraries.strings().ofMaxLength(12),
        Arbitraries.of("reviews", "reviews-v2-0", "GET:/reviews/1", "mTLS", "é-ü"));
    Arbitrary<HTTPServiceMeshMetric> record = Combinators.combine(Arbitraries.longs(), name, name,
        Arbitraries.integers(), name).as((t, a, b, n, p) -> HTTPServiceMeshMetric.newBuilder().setStartTime(t)
            .setEndTime(t + n).setSourceServiceName(a).setDestServiceName(b).setDestServiceInstance(a + "-0")
            .setEndpoint(p).setLatency(n).setResponseCode(n & 511).setStatus(n % 2 == 0)
            .addDestInstanceProperties(KeyStringValuePair.newBuilder().setKey(a).setValue(p)).build());
    Arbitrary<byte[]> valid = record.list().ofMinSize(1).ofMaxSize(5).map(list -> ServiceMeshMetrics.newBuilder()
        .setHttpMetrics(HTTPServiceMeshMetrics.newBuilder().addAllMetrics(list)).build().toByteArray());
    Arbitrary<List<int[]>> edits = Combinators.combine(Arbitraries.integers().between(0, 2),
        Arbitraries.integers().greaterOrEqual(0), Arbitraries.integers().between(-128, 127))
        .as((kind, at, value) -> new int[] {kind, at, value}).list().ofMinSize(1).ofMaxSize(4);
    return Combinators.combine(valid, edits).as(WireReaderProperties::damage);
  }

  /** Each edit changes a byte (0), cuts the message (1) or inserts a byte (2) at a position. */
  private static byte[] damage(byte[] message, List<int[]> edits) {
    byte[] out = message;
    for (int[] e : edits) {
      int at = out.length == 0 ? 0 : e[1] % out.length;
      if (e[0] == 0 && out.length > 0) {
        out = out.clone();
        out[at] = (byte) e[2];
      } else if (e[0] == 1) {
        out = Arrays.copyOf(out, at);
      } else {
        byte[] grown = new byte[out.length + 1];
        System.arraycopy(out, 0, grown, 0, at);
        grown[at] = (byte) e[2];
        System.arraycopy(out, at, grown, at + 1, out.length - at);
        out = grown;
      }
    }
    return out;
  }
}
