package io.sextant.core.spool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.FlowRecord;
import io.sextant.api.model.KernelOperation;
import io.sextant.api.model.KernelRecord;
import io.sextant.api.model.Layer;
import io.sextant.api.model.Observation;
import io.sextant.api.model.ProcessSampleRecord;
import io.sextant.api.model.SampleRecord;
import io.sextant.api.model.Scope;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every kind of observation comes back from the spool equal to what went in, names of any script included. */
class ObservationCodecTest {
  private static final List<Observation> ALL = List.of(
      new CallRecord(1, 2, "produção", "a-0", "b", null, "GET:/ü/{id}", 10, 503, false, CallProtocol.GRPC,
          DetectPoint.CLIENT, "mTLS", "upstream_reset", 5, 6, Layer.MESH, Map.of("pod", "a-0", "ns", "默认"), null),
      new FlowRecord(3, 4, "a", "a-0", "b", "b-0", DetectPoint.SERVER, "", null, 1, 2, 300, 400, Layer.MESH_DP,
          Map.of(), Map.of("k", "v")),
      new SampleRecord(5, "a", "a-0", null, null, DetectPoint.SERVER, Layer.MESH_DP, "envoy_heap_memory_used",
          "cluster|x", 42),
      new ProcessSampleRecord(6, Scope.PROCESS_RELATION, "s", "i", Layer.K8S_SERVICE, DetectPoint.CLIENT, "p1", "p2",
          "HTTP", "process_relation_http1_request_cpm", "", 202611250900L, 7),
      new KernelRecord(8, Layer.K8S_SERVICE, DetectPoint.SERVER, "details.默认", "details-1", KernelRecord.UNKNOWN,
          KernelRecord.UNKNOWN, KernelOperation.HTTP, true, 404, "GET:/details/0", CallProtocol.HTTP, "TLS",
          new long[] {1, 0, -2, Long.MAX_VALUE}));

  @Test
  void everyKindRoundTrips() {
    Out out = new Out(8);
    StringTable names = new StringTable();
    for (int twice = 0; twice < 2; twice++) { // names defined, then referred to
      ALL.forEach(o -> ObservationCodec.write(out, o, true, names));
    }
    In in = new In(ByteBuffer.wrap(Arrays.copyOf(out.array(), out.size())));
    StringTable.Reader reader = new StringTable.Reader();
    for (int twice = 0; twice < 2; twice++) {
      for (Observation expected : ALL) {
        assertThat(ObservationCodec.read(in, reader)).isEqualTo(expected);
      }
    }
    assertThat(in.hasMore()).isFalse();
  }

  @Test
  void propertiesLeftOutAreReadBackEmpty() {
    Out out = new Out(8);
    ObservationCodec.write(out, ALL.get(0), false, new StringTable());
    CallRecord back = (CallRecord) ObservationCodec.read(new In(ByteBuffer.wrap(Arrays.copyOf(out.array(),
        out.size()))), new StringTable.Reader());
    CallRecord c = (CallRecord) ALL.get(0);
    assertThat(back).isEqualTo(new CallRecord(c.startTimeMillis(), c.endTimeMillis(), c.sourceService(),
        c.sourceInstance(), c.destService(), c.destInstance(), c.endpoint(), c.latencyMillis(), c.responseCode(),
        c.success(), c.protocol(), c.detectPoint(), c.tlsMode(), c.internalErrorCode(),
        c.internalRequestLatencyNanos(), c.internalResponseLatencyNanos(), c.layer(), Map.of(), null));
  }

  @Test
  void aStringNumberPastLongMaxValueIsRefused() {
    // Found by SpoolDecoderProperties: a sample whose first name is a 10-byte varint.
    In in = new In(ByteBuffer.wrap(new byte[] {3, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, 1}));
    assertThatThrownBy(() -> ObservationCodec.read(in, new StringTable.Reader()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("used before it was defined");
  }

  @Test
  void aLengthPastTheFrameIsRefusedNotAllocated() {
    Out out = new Out(8);
    out.u8(1);
    out.varint(1);
    out.zigzag(2);
    out.varint(2); // defines a string ...
    out.varint(Integer.MAX_VALUE); // ... "longer" than the frame
    In in = new In(ByteBuffer.wrap(Arrays.copyOf(out.array(), out.size())));
    assertThatThrownBy(() -> ObservationCodec.read(in, new StringTable.Reader()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("past the end");
  }
}
