package io.sextant.core.spool;

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
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Accepted observations as the spool keeps them: a kind byte, then the record's fields in order,
 * numbers as varints, strings and enum names through the writer's {@link StringTable} (a record of
 * a known mesh takes a few dozen bytes: the disk bandwidth, not the encoding, is what spooling
 * costs).
 */
public final class ObservationCodec {
  private static final int CALL = 1;
  private static final int FLOW = 2;
  private static final int SAMPLE = 3;
  private static final int PROCESS_SAMPLE = 4;
  private static final int KERNEL = 5;
  /** More values than any version's kernel record carries: a damaged frame, not an allocation. */
  private static final int MAX_KERNEL_VALUES = 256;
  private static final long NO_MAP = 0;
  private static final long OMITTED_MAP = 1;

  private ObservationCodec() {}

  /**
   * Without {@code properties}, instance properties are left out (read back empty): a record that
   * created no accumulator needs none, and reading them from the wire costs more than the rest.
   */
  public static void write(Out o, Observation observation, boolean properties, StringTable names) {
    if (observation instanceof CallRecord c) {
      o.u8(CALL);
      o.varint(c.startTimeMillis());
      o.zigzag(c.endTimeMillis() - c.startTimeMillis());
      names.write(o, c.sourceService());
      names.write(o, c.sourceInstance());
      names.write(o, c.destService());
      names.write(o, c.destInstance());
      names.write(o, c.endpoint());
      o.zigzag(c.latencyMillis());
      o.zigzag(c.responseCode());
      o.bool(c.success());
      names.write(o, name(c.protocol()));
      names.write(o, name(c.detectPoint()));
      names.write(o, c.tlsMode());
      names.write(o, c.internalErrorCode());
      o.zigzag(c.internalRequestLatencyNanos());
      o.zigzag(c.internalResponseLatencyNanos());
      names.write(o, name(c.layer()));
      map(o, c.sourceInstanceProperties(), properties, names);
      map(o, c.destInstanceProperties(), properties, names);
    } else if (observation instanceof FlowRecord f) {
      o.u8(FLOW);
      o.varint(f.startTimeMillis());
      o.zigzag(f.endTimeMillis() - f.startTimeMillis());
      names.write(o, f.sourceService());
      names.write(o, f.sourceInstance());
      names.write(o, f.destService());
      names.write(o, f.destInstance());
      names.write(o, name(f.detectPoint()));
      names.write(o, f.tlsMode());
      names.write(o, f.internalErrorCode());
      o.zigzag(f.internalRequestLatencyNanos());
      o.zigzag(f.internalResponseLatencyNanos());
      o.zigzag(f.receivedBytes());
      o.zigzag(f.sentBytes());
      names.write(o, name(f.layer()));
      map(o, f.sourceInstanceProperties(), properties, names);
      map(o, f.destInstanceProperties(), properties, names);
    } else if (observation instanceof SampleRecord s) {
      o.u8(SAMPLE);
      o.varint(s.startTimeMillis());
      names.write(o, s.sourceService());
      names.write(o, s.sourceInstance());
      names.write(o, s.destService());
      names.write(o, s.destInstance());
      names.write(o, name(s.detectPoint()));
      names.write(o, name(s.layer()));
      names.write(o, s.metric());
      names.write(o, s.label());
      o.zigzag(s.value());
    } else if (observation instanceof ProcessSampleRecord p) {
      o.u8(PROCESS_SAMPLE);
      o.varint(p.startTimeMillis());
      names.write(o, name(p.scope()));
      names.write(o, p.service());
      names.write(o, p.instance());
      names.write(o, name(p.layer()));
      names.write(o, name(p.detectPoint()));
      names.write(o, p.clientProcessId());
      names.write(o, p.serverProcessId());
      names.write(o, p.component());
      names.write(o, p.metric());
      names.write(o, p.label());
      o.zigzag(p.bucket());
      o.zigzag(p.value());
    } else if (observation instanceof KernelRecord k) {
      o.u8(KERNEL);
      o.varint(k.startTimeMillis());
      names.write(o, name(k.layer()));
      names.write(o, name(k.detectPoint()));
      names.write(o, k.localService());
      names.write(o, k.localInstance());
      names.write(o, k.remoteService());
      names.write(o, k.remoteInstance());
      names.write(o, name(k.operation()));
      o.bool(k.success());
      o.zigzag(k.statusCode());
      names.write(o, k.endpoint());
      names.write(o, name(k.protocol()));
      names.write(o, k.tlsMode());
      o.varint(k.values().length);
      for (long v : k.values()) {
        o.zigzag(v);
      }
    } else {
      throw new IllegalArgumentException("not an observation the spool knows: " + observation.getClass());
    }
  }

  public static Observation read(In in, StringTable.Reader names) {
    int kind = in.u8();
    switch (kind) {
      case CALL: {
        long start = in.varint();
        return new CallRecord(start, start + in.zigzag(), names.read(in), names.read(in), names.read(in),
            names.read(in), names.read(in), (int) in.zigzag(), (int) in.zigzag(), in.bool(),
            value(CallProtocol.class, names.read(in)), value(DetectPoint.class, names.read(in)), names.read(in),
            names.read(in), in.zigzag(), in.zigzag(), value(Layer.class, names.read(in)), map(in, names),
            map(in, names));
      }
      case FLOW: {
        long start = in.varint();
        return new FlowRecord(start, start + in.zigzag(), names.read(in), names.read(in), names.read(in),
            names.read(in), value(DetectPoint.class, names.read(in)), names.read(in), names.read(in), in.zigzag(),
            in.zigzag(), in.zigzag(), in.zigzag(), value(Layer.class, names.read(in)), map(in, names), map(in, names));
      }
      case SAMPLE:
        return new SampleRecord(in.varint(), names.read(in), names.read(in), names.read(in), names.read(in),
            value(DetectPoint.class, names.read(in)), value(Layer.class, names.read(in)), names.read(in),
            names.read(in), in.zigzag());
      case PROCESS_SAMPLE:
        return new ProcessSampleRecord(in.varint(), value(Scope.class, names.read(in)), names.read(in),
            names.read(in), value(Layer.class, names.read(in)), value(DetectPoint.class, names.read(in)),
            names.read(in), names.read(in), names.read(in), names.read(in), names.read(in), in.zigzag(),
            in.zigzag());
      case KERNEL:
        return kernel(in, names);
      default:
        throw new IllegalArgumentException("unknown observation kind " + kind);
    }
  }

  private static KernelRecord kernel(In in, StringTable.Reader names) {
    long start = in.varint();
    Layer layer = value(Layer.class, names.read(in));
    DetectPoint detectPoint = value(DetectPoint.class, names.read(in));
    String localService = names.read(in);
    String localInstance = names.read(in);
    String remoteService = names.read(in);
    String remoteInstance = names.read(in);
    KernelOperation operation = value(KernelOperation.class, names.read(in));
    boolean success = in.bool();
    int statusCode = (int) in.zigzag();
    String endpoint = names.read(in);
    CallProtocol protocol = value(CallProtocol.class, names.read(in));
    String tlsMode = names.read(in);
    long count = in.varint();
    if (count < 0 || count > MAX_KERNEL_VALUES) {
      throw new IllegalArgumentException("a kernel record of " + count + " values");
    }
    long[] values = new long[(int) count];
    for (int i = 0; i < values.length; i++) {
      values[i] = in.zigzag();
    }
    return new KernelRecord(start, layer, detectPoint, localService, localInstance, remoteService, remoteInstance,
        operation, success, statusCode, endpoint, protocol, tlsMode, values);
  }

  private static String name(Enum<?> e) {
    return e == null ? null : e.name();
  }

  private static <E extends Enum<E>> E value(Class<E> type, String name) {
    return name == null ? null : Enum.valueOf(type, name);
  }

  /** A map as: 0 null, 1 left out (read back empty), else 2 + its size and its entries. */
  private static void map(Out o, Map<String, String> map, boolean keep, StringTable names) {
    if (map == null) {
      o.varint(NO_MAP);
    } else if (!keep) {
      o.varint(OMITTED_MAP);
    } else {
      o.varint(2L + map.size());
      for (Map.Entry<String, String> e : map.entrySet()) {
        names.write(o, e.getKey());
        names.write(o, e.getValue());
      }
    }
  }

  private static Map<String, String> map(In in, StringTable.Reader names) {
    long code = in.varint();
    if (code == NO_MAP) {
      return null;
    }
    if (code == OMITTED_MAP || code == 2) {
      return Map.of();
    }
    long n = code - 2;
    if (n < 0 || n > in.remaining()) {
      throw new IllegalArgumentException("map of " + n + " entries past the end of the frame");
    }
    Map<String, String> m = new LinkedHashMap<>((int) n * 2);
    for (long i = 0; i < n; i++) {
      m.put(names.read(in), names.read(in));
    }
    return Collections.unmodifiableMap(m);
  }
}
