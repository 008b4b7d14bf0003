package io.sextant.core.spool;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/** Bytes being encoded for the spool: a growable buffer with the few shapes the spool writes. */
public final class Out {
  private byte[] buf;
  private int size;

  public Out(int capacity) {
    this.buf = new byte[capacity];
  }

  public int size() {
    return size;
  }

  byte[] array() {
    return buf;
  }

  public int capacity() {
    return buf.length;
  }

  public void reset() {
    size = 0;
  }

  private void ensure(int more) {
    if (size + more > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
    }
  }

  public void u8(int v) {
    ensure(1);
    buf[size++] = (byte) v;
  }

  public void bool(boolean v) {
    u8(v ? 1 : 0);
  }

  public void i32(int v) {
    ensure(4);
    buf[size++] = (byte) (v >>> 24);
    buf[size++] = (byte) (v >>> 16);
    buf[size++] = (byte) (v >>> 8);
    buf[size++] = (byte) v;
  }

  public void i64(long v) {
    i32((int) (v >>> 32));
    i32((int) v);
  }

  /** A string or null; ASCII (nearly every name) is copied without an intermediate array. */
  public void str(String s) {
    if (s == null) {
      i32(-1);
      return;
    }
    int n = s.length();
    ensure(4 + n);
    int lengthAt = size;
    size += 4;
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c >= 0x80) {
        size = lengthAt;
        bytes(s.getBytes(StandardCharsets.UTF_8));
        return;
      }
      buf[size++] = (byte) c;
    }
    int end = size;
    size = lengthAt;
    i32(n);
    size = end;
  }

  /** Bytes or null. */
  public void bytes(byte[] b) {
    if (b == null) {
      i32(-1);
      return;
    }
    i32(b.length);
    ensure(b.length);
    System.arraycopy(b, 0, buf, size, b.length);
    size += b.length;
  }

  /** An unsigned LEB128 varint: small numbers take a byte. */
  public void varint(long v) {
    ensure(10);
    while ((v & ~0x7FL) != 0) {
      buf[size++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    buf[size++] = (byte) v;
  }

  /** A signed number as a zigzag varint: small magnitudes take a byte. */
  public void zigzag(long v) {
    varint((v << 1) ^ (v >> 63));
  }

  /** A non-null string as a varint length and its UTF-8 bytes. */
  void utf8(String s) {
    int n = s.length();
    ensure(10 + n);
    int start = size;
    varint(n);
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c >= 0x80) {
        size = start;
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        varint(b.length);
        ensure(b.length);
        System.arraycopy(b, 0, buf, size, b.length);
        size += b.length;
        return;
      }
      buf[size++] = (byte) c;
    }
  }

  public void enumName(Enum<?> e) {
    str(e == null ? null : e.name());
  }

  public void strings(Map<String, String> map) {
    if (map == null) {
      i32(-1);
      return;
    }
    i32(map.size());
    for (Map.Entry<String, String> e : map.entrySet()) {
      str(e.getKey());
      str(e.getValue());
    }
  }

}
