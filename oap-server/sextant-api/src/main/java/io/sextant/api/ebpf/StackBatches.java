package io.sextant.api.ebpf;

import io.sextant.api.storage.StoredRecord;
import java.io.ByteArrayOutputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * How stack samples are kept: records of kind {@value #KIND}, entity = the schedule id, time = the
 * upload time, body = one {@link StackBatch} in a compact binary form: a version byte, the target
 * type (0 on-CPU, 1 off-CPU), the symbol table (count, then length-prefixed UTF-8), then the samples
 * (count; per sample count, duration, kernel stack ids, user stack ids). Every integer is an
 * unsigned LEB128 varint, so the small numbers that dominate take a byte.
 */
public final class StackBatches {
  public static final String KIND = "ebpf-profiling-stacks";

  private static final int VERSION = 1;

  private StackBatches() {}

  public static StoredRecord toRecord(String id, String scheduleId, long uploadTime, StackBatch batch) {
    return new StoredRecord(KIND, id, scheduleId, uploadTime, List.of(), encode(batch));
  }

  public static byte[] encode(StackBatch b) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64 + b.samples().size() * 16);
    out.write(VERSION);
    out.write(ProfilingTask.OFF_CPU.equals(b.targetType()) ? 1 : 0);
    varint(out, b.symbols().size());
    for (String s : b.symbols()) {
      byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
      varint(out, utf8.length);
      out.write(utf8, 0, utf8.length);
    }
    varint(out, b.samples().size());
    for (StackSample s : b.samples()) {
      varint(out, s.count());
      varint(out, s.durationNanos());
      ids(out, s.kernelSymbols());
      ids(out, s.userSymbols());
    }
    return out.toByteArray();
  }

  public static StackBatch decode(byte[] body) {
    ByteBuffer in = ByteBuffer.wrap(body);
    try {
      int version = in.get();
      if (version != VERSION) {
        throw new IllegalArgumentException("unknown stack batch encoding version " + version);
      }
      String target = in.get() == 1 ? ProfilingTask.OFF_CPU : ProfilingTask.ON_CPU;
      int symbolCount = count(in, body.length);
      List<String> symbols = new ArrayList<>(symbolCount);
      for (int i = 0; i < symbolCount; i++) {
        int len = count(in, body.length);
        symbols.add(new String(body, in.position(), len, StandardCharsets.UTF_8));
        in.position(in.position() + len);
      }
      int sampleCount = count(in, body.length);
      List<StackSample> samples = new ArrayList<>(sampleCount);
      for (int i = 0; i < sampleCount; i++) {
        long count = readVarint(in);
        long duration = readVarint(in);
        samples.add(new StackSample(count, duration, ids(in, symbolCount, body.length),
            ids(in, symbolCount, body.length)));
      }
      return new StackBatch(target, symbols, samples);
    } catch (BufferUnderflowException | IndexOutOfBoundsException e) {
      throw new IllegalArgumentException("truncated stack batch", e);
    }
  }

  private static void ids(ByteArrayOutputStream out, int[] ids) {
    varint(out, ids.length);
    for (int id : ids) {
      varint(out, id);
    }
  }

  private static int[] ids(ByteBuffer in, int symbolCount, int bodyLength) {
    int[] ids = new int[count(in, bodyLength)];
    for (int i = 0; i < ids.length; i++) {
      long id = readVarint(in);
      if (id >= symbolCount) {
        throw new IllegalArgumentException("stack batch names symbol " + id + " of " + symbolCount);
      }
      ids[i] = (int) id;
    }
    return ids;
  }

  /** A count, which can never exceed the bytes left: guards allocations against a corrupt body. */
  private static int count(ByteBuffer in, int bodyLength) {
    long n = readVarint(in);
    if (n > bodyLength) {
      throw new IllegalArgumentException("corrupt stack batch: count " + n);
    }
    return (int) n;
  }

  private static void varint(ByteArrayOutputStream out, long v) {
    while ((v & ~0x7FL) != 0) {
      out.write((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }

  private static long readVarint(ByteBuffer in) {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      byte b = in.get();
      v |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return v;
      }
    }
    throw new IllegalArgumentException("corrupt stack batch: varint too long");
  }
}
