package io.sextant.benchmarks;

import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Layer;
import io.sextant.benchmarks.MeshTopology.Kind;
import java.util.Map;

/** Normalised call records (what the receiver hands the aggregator) drawn from a topology. */
final class CallRecords {
  private CallRecords() {}

  /**
   * A topology for a benchmark shape: {@code bookinfo}, or {@code <services>x<endpoints>} for a
   * random mesh of that many services with that many endpoints in total (2 pods per service).
   */
  static MeshTopology topology(String shape) {
    if (shape.equals("bookinfo")) {
      return MeshTopology.bookinfo(2, 20, 42);
    }
    String[] parts = shape.split("x");
    if (parts.length != 2) {
      throw new IllegalArgumentException("shape must be 'bookinfo' or '<services>x<endpoints>', got " + shape);
    }
    return MeshTopology.random(Integer.parseInt(parts[0]), 2, Integer.parseInt(parts[1]), 42);
  }

  /** {@code count} L7 records (both sides of each call) with start times just before {@code nowMillis}. */
  static CallRecord[] build(MeshTopology topology, int count, long nowMillis, long seed) {
    CallSampler s = new CallSampler(topology, 0, 0.02, seed);
    CallRecord[] out = new CallRecord[count];
    int n = 0;
    while (n < count) {
      s.next(nowMillis);
      if (s.source != null) {
        out[n++] = record(s, true);
      }
      if (n < count) {
        out[n++] = record(s, false);
      }
    }
    return out;
  }

  private static CallRecord record(CallSampler s, boolean client) {
    long start = client ? s.clientStartMillis : s.serverStartMillis;
    int latency = client ? s.clientLatencyMillis : s.serverLatencyMillis;
    boolean external = s.source == null;
    return new CallRecord(start, start + latency,
        external ? "" : s.edge.source.name, external ? "" : s.source.name,
        s.edge.dest.name, s.dest.name, s.endpoint, latency, s.responseCode, s.success,
        s.edge.kind() == Kind.GRPC ? CallProtocol.GRPC : CallProtocol.HTTP,
        client ? DetectPoint.CLIENT : DetectPoint.SERVER, s.edge.tlsMode, s.internalErrorCode,
        client ? s.clientRequestNanos : s.serverRequestNanos,
        client ? s.clientResponseNanos : s.serverResponseNanos,
        Layer.MESH, external ? Map.of() : s.source.properties, s.dest.properties);
  }
}
