package io.sextant.core.spool;

import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.FlowRecord;
import io.sextant.api.model.Layer;
import io.sextant.api.model.Observation;
import io.sextant.api.model.ProcessSampleRecord;
import io.sextant.api.model.SampleRecord;
import io.sextant.api.model.Scope;

/** Accepted observations as the spool keeps them: a kind byte, then the record's fields in order. */
public final class ObservationCodec {
  private static final int CALL = 1;
  private static final int FLOW = 2;
  private static final int SAMPLE = 3;
  private static final int PROCESS_SAMPLE = 4;

  private ObservationCodec() {}

  public static void write(Out o, Observation observation) {
    if (observation instanceof CallRecord c) {
        o.u8(CALL);
        o.i64(c.startTimeMillis());
        o.i64(c.endTimeMillis());
        o.str(c.sourceService());
        o.str(c.sourceInstance());
        o.str(c.destService());
        o.str(c.destInstance());
        o.str(c.endpoint());
        o.i32(c.latencyMillis());
        o.i32(c.responseCode());
        o.bool(c.success());
        o.enumName(c.protocol());
        o.enumName(c.detectPoint());
        o.str(c.tlsMode());
        o.str(c.internalErrorCode());
        o.i64(c.internalRequestLatencyNanos());
        o.i64(c.internalResponseLatencyNanos());
        o.enumName(c.layer());
        o.strings(c.sourceInstanceProperties());
        o.strings(c.destInstanceProperties());
    } else if (observation instanceof FlowRecord f) {
        o.u8(FLOW);
        o.i64(f.startTimeMillis());
        o.i64(f.endTimeMillis());
        o.str(f.sourceService());
        o.str(f.sourceInstance());
        o.str(f.destService());
        o.str(f.destInstance());
        o.enumName(f.detectPoint());
        o.str(f.tlsMode());
        o.str(f.internalErrorCode());
        o.i64(f.internalRequestLatencyNanos());
        o.i64(f.internalResponseLatencyNanos());
        o.i64(f.receivedBytes());
        o.i64(f.sentBytes());
        o.enumName(f.layer());
        o.strings(f.sourceInstanceProperties());
        o.strings(f.destInstanceProperties());
    } else if (observation instanceof SampleRecord s) {
        o.u8(SAMPLE);
        o.i64(s.startTimeMillis());
        o.str(s.sourceService());
        o.str(s.sourceInstance());
        o.str(s.destService());
        o.str(s.destInstance());
        o.enumName(s.detectPoint());
        o.enumName(s.layer());
        o.str(s.metric());
        o.str(s.label());
        o.i64(s.value());
    } else if (observation instanceof ProcessSampleRecord p) {
        o.u8(PROCESS_SAMPLE);
        o.i64(p.startTimeMillis());
        o.enumName(p.scope());
        o.str(p.service());
        o.str(p.instance());
        o.enumName(p.layer());
        o.enumName(p.detectPoint());
        o.str(p.clientProcessId());
        o.str(p.serverProcessId());
        o.str(p.component());
        o.str(p.metric());
        o.str(p.label());
        o.i64(p.bucket());
        o.i64(p.value());
    } else {
      throw new IllegalArgumentException("not an observation the spool knows: " + observation.getClass());
    }
  }

  public static Observation read(In in) {
    int kind = in.u8();
    return switch (kind) {
      case CALL -> new CallRecord(in.i64(), in.i64(), in.str(), in.str(), in.str(), in.str(), in.str(), in.i32(),
          in.i32(), in.bool(), in.enumName(CallProtocol.class), in.enumName(DetectPoint.class), in.str(), in.str(),
          in.i64(), in.i64(), in.enumName(Layer.class), in.strings(), in.strings());
      case FLOW -> new FlowRecord(in.i64(), in.i64(), in.str(), in.str(), in.str(), in.str(),
          in.enumName(DetectPoint.class), in.str(), in.str(), in.i64(), in.i64(), in.i64(), in.i64(),
          in.enumName(Layer.class), in.strings(), in.strings());
      case SAMPLE -> new SampleRecord(in.i64(), in.str(), in.str(), in.str(), in.str(), in.enumName(DetectPoint.class),
          in.enumName(Layer.class), in.str(), in.str(), in.i64());
      case PROCESS_SAMPLE -> new ProcessSampleRecord(in.i64(), in.enumName(Scope.class), in.str(), in.str(),
          in.enumName(Layer.class), in.enumName(DetectPoint.class), in.str(), in.str(), in.str(), in.str(), in.str(),
          in.i64(), in.i64());
      default -> throw new IllegalArgumentException("unknown observation kind " + kind);
    };
  }
}
