package io.sextant.receiver.mesh;

import com.google.protobuf.UnsafeByteOperations;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The names a mesh reports (services, instances, endpoints, TLS modes), looked up by their UTF-8
 * bytes: a sidecar sends the same few thousand names again and again, so a known name costs a hash
 * over its bytes and one compare, and is always the same {@code String} instance, whose hash the
 * id caches downstream then find already computed. Thread-safe without locks; bounded by {@code
 * maxNames} names of at most {@link #MAX_NAME_BYTES} bytes (at most ~50 MB for 100,000): past it,
 * and for longer names, names are decoded each time, as without the table.
 */
final class NameTable {
  /** Longer names (rare: long URL paths) are not kept, so the table's memory stays bounded. */
  static final int MAX_NAME_BYTES = 128;

  private final AtomicReferenceArray<Name> slots;
  private final int mask;
  private final int maxNames;
  private final AtomicInteger size = new AtomicInteger();

  NameTable(int maxNames) {
    this.maxNames = maxNames;
    // At most half full, so probe sequences stay short.
    int capacity = Integer.highestOneBit(Math.max(16, maxNames * 2 - 1)) << 1;
    this.slots = new AtomicReferenceArray<>(capacity);
    this.mask = capacity - 1;
  }

  /**
   * The name encoded in {@code buf[offset, offset + length)}; throws {@link WireReader.Malformed}
   * if it is not valid UTF-8 (protobuf's rule for {@code string} fields).
   */
  String name(byte[] buf, int offset, int length) {
    if (length == 0) {
      return "";
    }
    if (length > MAX_NAME_BYTES) {
      return decode(buf, offset, length);
    }
    int hash = hash(buf, offset, length);
    int i = hash & mask;
    while (true) {
      Name n = slots.get(i);
      if (n == null) {
        return add(i, hash, buf, offset, length);
      }
      if (n.hash == hash && n.matches(buf, offset, length)) {
        return n.value;
      }
      i = (i + 1) & mask;
    }
  }

  private String add(int slot, int hash, byte[] buf, int offset, int length) {
    String value = decode(buf, offset, length);
    if (size.get() >= maxNames) {
      return value;
    }
    Name created = new Name(hash, Arrays.copyOfRange(buf, offset, offset + length), value);
    int i = slot;
    while (true) {
      if (slots.compareAndSet(i, null, created)) {
        size.incrementAndGet();
        return value;
      }
      Name n = slots.get(i);
      if (n.hash == hash && n.matches(buf, offset, length)) {
        return n.value; // another thread added it first
      }
      i = (i + 1) & mask;
    }
  }

  int size() {
    return size.get();
  }

  static String decode(byte[] buf, int offset, int length) {
    if (!isValidUtf8(buf, offset, length)) {
      throw new WireReader.Malformed("invalid UTF-8 in a string field");
    }
    return new String(buf, offset, length, StandardCharsets.UTF_8);
  }

  static boolean isValidUtf8(byte[] buf, int offset, int length) {
    int end = offset + length;
    int i = offset;
    // Names and properties are nearly always ASCII: check eight bytes at a time for a high bit.
    while (i + 8 <= end && ((long) LONGS.get(buf, i) & 0x8080808080808080L) == 0) {
      i += 8;
    }
    for (; i < end; i++) {
      if (buf[i] < 0) {
        return UnsafeByteOperations.unsafeWrap(buf, i, end - i).isValidUtf8();
      }
    }
    return true; // ASCII
  }

  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private static int hash(byte[] buf, int offset, int length) {
    int h = length;
    for (int i = offset; i < offset + length; i++) {
      h = 31 * h + buf[i];
    }
    return h ^ (h >>> 16);
  }

  private record Name(int hash, byte[] bytes, String value) {
    boolean matches(byte[] buf, int offset, int length) {
      return Arrays.equals(bytes, 0, bytes.length, buf, offset, offset + length);
    }
  }
}
