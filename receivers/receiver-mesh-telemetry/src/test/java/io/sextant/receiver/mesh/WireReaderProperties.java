package io.sextant.receiver.mesh;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.InvalidProtocolBufferException;
import io.sextant.testkit.fuzz.Damaged;
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
    return Damaged.bytes(valid, 4);
  }
}
