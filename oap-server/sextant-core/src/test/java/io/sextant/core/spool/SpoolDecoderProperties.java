package io.sextant.core.spool;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.FlowRecord;
import io.sextant.api.model.Layer;
import io.sextant.api.model.Observation;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/**
 * Fuzzing the spool's decoders (jqwik: random inputs, shrunk to the smallest failing one): any
 * record comes back as it went in, and any bytes, as a frame or as a file, are read or refused
 * with the decoders' own exceptions, never a crash, an endless loop or a huge allocation. A longer
 * run: {@code -Djqwik.tries.default=100000} (docs/reliability.md).
 */
class SpoolDecoderProperties {
  @Property
  void everyRecordComesBackAsItWentIn(@ForAll("observations") List<Observation> records) {
    Out out = new Out(16);
    StringTable names = new StringTable();
    records.forEach(r -> ObservationCodec.write(out, r, true, names));
    In in = new In(ByteBuffer.wrap(Arrays.copyOf(out.array(), out.size())));
    StringTable.Reader reader = new StringTable.Reader();
    List<Observation> back = new ArrayList<>();
    while (in.hasMore()) {
      back.add(ObservationCodec.read(in, reader));
    }
    assertThat(back).isEqualTo(records);
  }

  @Property
  void anyBytesAreReadOrRefusedNeverACrash(@ForAll @Size(max = 4096) byte[] frame) {
    In in = new In(ByteBuffer.wrap(frame));
    StringTable.Reader reader = new StringTable.Reader();
    try {
      while (in.hasMore()) {
        ObservationCodec.read(in, reader);
      }
    } catch (IllegalArgumentException | BufferUnderflowException refused) {
      // what a damaged frame gets: the recovery counts it and skips the rest of the frame
    }
  }

  @Property
  void anyFileIsReadUpToItsDamage(@ForAll @Size(max = 8192) byte[] content) throws IOException {
    Path file = Files.createTempFile("spool-fuzz", ".log");
    try {
      Files.write(file, content);
      List<ByteBuffer> frames = new ArrayList<>();
      FrameFile.read(file, frames::add);
      assertThat(frames.stream().mapToInt(ByteBuffer::remaining).sum()).isLessThanOrEqualTo(content.length);
    } finally {
      Files.delete(file);
    }
  }

  @Provide
  Arbitrary<List<Observation>> observations() {
    Arbitrary<String> text = Arbitraries.strings().ofMaxLength(40);
    Arbitrary<String> name = Arbitraries.oneOf(text, Arbitraries.of("svc-a", "svc-b", "pod-0", "GET:/x", ""));
    Arbitrary<Map<String, String>> props = Arbitraries.maps(name, text).ofMaxSize(3).injectNull(0.2);
    Arbitrary<Long> time = Arbitraries.longs();
    Arbitrary<Observation> call = Combinators.combine(time, name, name, name, Arbitraries.integers(),
        Arbitraries.of(CallProtocol.class), Arbitraries.of(DetectPoint.class), props).as((t, a, b, c, n, p, d, m) ->
            new CallRecord(t, t + n, a, b, c, a, b, n, n, n % 2 == 0, p, d, c, a, t, -t, Layer.MESH, m, m));
    Arbitrary<Observation> flow = Combinators.combine(time, name, name, Arbitraries.longs(),
        Arbitraries.of(Layer.class), props).as((t, a, b, n, l, m) ->
            new FlowRecord(t, t, a, b, b, a, DetectPoint.SERVER, null, a, n, -n, n, t, l, m, null));
    return Arbitraries.oneOf(call, flow).list().ofMaxSize(20);
  }
}
