package io.sextant.receiver.mesh;

import java.util.Arrays;
import java.util.Map;

/**
 * One {@code HTTPServiceMeshMetric} or {@code TCPServiceMeshMetric} read off the wire: the same
 * fields with protobuf's defaults and its rules (last value of a field wins, unknown fields and
 * fields of an unexpected wire type are skipped), names looked up in a {@link NameTable}, instance
 * properties kept as bytes. One instance is reused for every record of a stream.
 */
final class WireMetric {
  private final NameTable names;
  private final int maxPropertyLength;

  long startTime;
  long endTime;
  String sourceServiceName;
  String sourceServiceInstance;
  String destServiceName;
  String destServiceInstance;
  String endpoint;
  int latency;
  int responseCode;
  boolean status;
  int protocol;
  int detectPoint;
  String tlsMode;
  String internalErrorCode;
  long internalRequestLatencyNanos;
  long internalResponseLatencyNanos;
  long receivedBytes;
  long sentBytes;
  int sourcePropertyCount;
  int destPropertyCount;
  Map<String, String> sourceProperties;
  Map<String, String> destProperties;

  // Where each side's pairs lie in the message, so that only they are copied.
  private final Side source = new Side();
  private final Side dest = new Side();

  WireMetric(NameTable names, int maxPropertyLength) {
    this.names = names;
    this.maxPropertyLength = maxPropertyLength;
  }

  private void reset() {
    startTime = 0;
    endTime = 0;
    sourceServiceName = "";
    sourceServiceInstance = "";
    destServiceName = "";
    destServiceInstance = "";
    endpoint = "";
    latency = 0;
    responseCode = 0;
    status = false;
    protocol = 0;
    detectPoint = 0;
    tlsMode = "";
    internalErrorCode = "";
    internalRequestLatencyNanos = 0;
    internalResponseLatencyNanos = 0;
    receivedBytes = 0;
    sentBytes = 0;
    source.reset();
    dest.reset();
  }

  /** Reads an {@code HTTPServiceMeshMetric} of {@code length} bytes at the reader's position. */
  void readHttp(WireReader in, int length) {
    reset();
    int outer = in.pushLimit(length);
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      switch (tag) {
        case 1 << 3 -> startTime = in.readVarint();
        case 2 << 3 -> endTime = in.readVarint();
        case 3 << 3 | 2 -> sourceServiceName = name(in);
        case 4 << 3 | 2 -> sourceServiceInstance = name(in);
        case 5 << 3 | 2 -> destServiceName = name(in);
        case 6 << 3 | 2 -> destServiceInstance = name(in);
        case 7 << 3 | 2 -> endpoint = name(in);
        case 8 << 3 -> latency = (int) in.readVarint();
        case 9 << 3 -> responseCode = (int) in.readVarint();
        case 10 << 3 -> status = in.readVarint() != 0;
        case 11 << 3 -> protocol = (int) in.readVarint();
        case 12 << 3 -> detectPoint = (int) in.readVarint();
        case 13 << 3 | 2 -> tlsMode = name(in);
        case 14 << 3 | 2 -> internalErrorCode = name(in);
        case 15 << 3 -> internalRequestLatencyNanos = in.readVarint();
        case 16 << 3 -> internalResponseLatencyNanos = in.readVarint();
        case 17 << 3 | 2 -> pair(in, source);
        case 18 << 3 | 2 -> pair(in, dest);
        default -> in.skipField(tag);
      }
    }
    in.popLimit(outer);
    finish(in.buffer());
  }

  /** Reads a {@code TCPServiceMeshMetric} of {@code length} bytes at the reader's position. */
  void readTcp(WireReader in, int length) {
    reset();
    int outer = in.pushLimit(length);
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      switch (tag) {
        case 1 << 3 -> startTime = in.readVarint();
        case 2 << 3 -> endTime = in.readVarint();
        case 3 << 3 | 2 -> sourceServiceName = name(in);
        case 4 << 3 | 2 -> sourceServiceInstance = name(in);
        case 5 << 3 | 2 -> destServiceName = name(in);
        case 6 << 3 | 2 -> destServiceInstance = name(in);
        case 7 << 3 -> detectPoint = (int) in.readVarint();
        case 8 << 3 | 2 -> tlsMode = name(in);
        case 9 << 3 | 2 -> internalErrorCode = name(in);
        case 10 << 3 -> internalRequestLatencyNanos = in.readVarint();
        case 11 << 3 -> internalResponseLatencyNanos = in.readVarint();
        case 12 << 3 | 2 -> pair(in, source);
        case 13 << 3 | 2 -> pair(in, dest);
        case 14 << 3 -> receivedBytes = in.readVarint();
        case 15 << 3 -> sentBytes = in.readVarint();
        default -> in.skipField(tag);
      }
    }
    in.popLimit(outer);
    finish(in.buffer());
  }

  private void finish(byte[] buf) {
    sourcePropertyCount = source.count;
    destPropertyCount = dest.count;
    sourceProperties = source.properties(buf);
    destProperties = dest.properties(buf);
  }

  private String name(WireReader in) {
    int length = in.readLength();
    int at = in.position();
    in.skip(length);
    return names.name(in.buffer(), at, length);
  }

  /** One {@code KeyStringValuePair}: its key's and value's bytes, checked to be UTF-8, not decoded. */
  private void pair(WireReader in, Side side) {
    int length = in.readLength();
    int start = in.position();
    int outer = in.pushLimit(length);
    // proto3 defaults: an absent key or value is empty (offset anywhere inside the copied range).
    int keyAt = start;
    int keyLength = 0;
    int valueAt = start;
    int valueLength = 0;
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      if (tag == (1 << 3 | 2) || tag == (2 << 3 | 2)) {
        int n = in.readLength();
        int at = in.position();
        if (!NameTable.isValidUtf8(in.buffer(), at, n)) {
          throw new WireReader.Malformed("invalid UTF-8 in a string field");
        }
        in.skip(n);
        if (tag == (1 << 3 | 2)) {
          keyAt = at;
          keyLength = n;
        } else {
          valueAt = at;
          valueLength = n;
        }
      } else {
        in.skipField(tag);
      }
    }
    in.popLimit(outer);
    side.add(start, start + length, keyAt, keyLength, valueAt, valueLength);
  }

  /** The pairs of one side, collected while reading. */
  private final class Side {
    int count;
    int from;
    int to;
    int[] ranges = new int[16];

    void reset() {
      count = 0;
    }

    void add(int start, int end, int keyAt, int keyLength, int valueAt, int valueLength) {
      if (count == 0) {
        from = start;
        to = end;
      } else {
        from = Math.min(from, start);
        to = Math.max(to, end);
      }
      if (ranges.length < (count + 1) * 4) {
        ranges = Arrays.copyOf(ranges, ranges.length * 2);
      }
      int i = count * 4;
      ranges[i] = keyAt;
      ranges[i + 1] = keyLength;
      ranges[i + 2] = valueAt;
      ranges[i + 3] = valueLength;
      count++;
    }

    Map<String, String> properties(byte[] buf) {
      return WireProperties.of(buf, from, to, ranges, count, maxPropertyLength);
    }
  }
}
