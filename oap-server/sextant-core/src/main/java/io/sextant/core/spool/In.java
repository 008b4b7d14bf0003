package io.sextant.core.spool;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** Bytes being decoded from the spool, the shapes {@link Out} writes; throws on anything malformed. */
public final class In {
  private final ByteBuffer b;

  public In(ByteBuffer b) {
    this.b = b;
  }

  public int remaining() {
    return b.remaining();
  }

  public boolean hasMore() {
    return b.hasRemaining();
  }

  public int u8() {
    return b.get() & 0xff;
  }

  public boolean bool() {
    return u8() != 0;
  }

  public int i32() {
    return b.getInt();
  }

  public long i64() {
    return b.getLong();
  }

  public String str() {
    byte[] bytes = bytes();
    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
  }

  public byte[] bytes() {
    int n = i32();
    if (n < 0) {
      return null;
    }
    if (n > b.remaining()) {
      throw new IllegalArgumentException("length " + n + " past the end of the frame");
    }
    byte[] out = new byte[n];
    b.get(out);
    return out;
  }

  public long varint() {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      byte b = this.b.get();
      v |= (long) (b & 0x7F) << shift;
      if (b >= 0) {
        return v;
      }
    }
    throw new IllegalArgumentException("varint longer than 10 bytes");
  }

  public long zigzag() {
    long v = varint();
    return (v >>> 1) ^ -(v & 1);
  }

  /** What {@link Out#utf8} wrote. */
  String utf8() {
    long n = varint();
    if (n < 0 || n > b.remaining()) {
      throw new IllegalArgumentException("length " + n + " past the end of the frame");
    }
    String s = new String(b.array(), b.arrayOffset() + b.position(), (int) n, StandardCharsets.UTF_8);
    b.position(b.position() + (int) n);
    return s;
  }

  public <E extends Enum<E>> E enumName(Class<E> type) {
    String name = str();
    return name == null ? null : Enum.valueOf(type, name);
  }

  public Map<String, String> strings() {
    int n = i32();
    if (n < 0) {
      return null;
    }
    if (n == 0) {
      return Map.of();
    }
    if (n > b.remaining()) {
      throw new IllegalArgumentException("map of " + n + " entries past the end of the frame");
    }
    Map<String, String> m = new LinkedHashMap<>(n * 2);
    for (int i = 0; i < n; i++) {
      m.put(str(), str());
    }
    return Collections.unmodifiableMap(m);
  }
}
