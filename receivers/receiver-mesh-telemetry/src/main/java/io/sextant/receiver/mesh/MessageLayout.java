package io.sextant.receiver.mesh;

import java.util.Arrays;

/**
 * Where the records of one {@code ServiceMeshMetrics} lie in its bytes, and of which kind, found
 * without reading the records themselves. Follows protobuf's rules for the {@code oneof}: a later
 * {@code httpMetrics} or {@code tcpMetrics} of the other kind replaces what came before, one of
 * the same kind adds to it.
 */
final class MessageLayout {
  enum Kind { NONE, HTTP, TCP }

  private static final int HTTP_METRICS = WireReader.tag(1, WireReader.LENGTH_DELIMITED);
  private static final int TCP_METRICS = WireReader.tag(2, WireReader.LENGTH_DELIMITED);
  private static final int METRIC = WireReader.tag(1, WireReader.LENGTH_DELIMITED);

  Kind kind = Kind.NONE;
  /** Offset and length of each record, in pairs. */
  int[] records = new int[16];
  int count;

  /** Reads the layout of {@code message}; throws {@link WireReader.Malformed} if it is not protobuf. */
  void read(byte[] message) {
    kind = Kind.NONE;
    count = 0;
    WireReader in = new WireReader(message, 0, message.length);
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      Kind k = tag == HTTP_METRICS ? Kind.HTTP : tag == TCP_METRICS ? Kind.TCP : null;
      if (k == null) {
        in.skipField(tag);
        continue;
      }
      if (k != kind) {
        kind = k;
        count = 0;
      }
      int outer = in.pushLimit(in.readLength());
      for (int t = in.readTag(); t != 0; t = in.readTag()) {
        if (t == METRIC) {
          int length = in.readLength();
          add(in.position(), length);
          in.skip(length);
        } else {
          in.skipField(t);
        }
      }
      in.popLimit(outer);
    }
  }

  private void add(int offset, int length) {
    if (records.length < (count + 1) * 2) {
      records = Arrays.copyOf(records, records.length * 2);
    }
    records[count * 2] = offset;
    records[count * 2 + 1] = length;
    count++;
  }
}
