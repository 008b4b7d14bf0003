package io.sextant.receiver.mesh;

import java.nio.charset.StandardCharsets;
import java.util.AbstractMap;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Instance properties ({@code repeated KeyStringValuePair}) as a read-only map over their bytes,
 * decoded only when read. The aggregator reads them once per new instance per minute, not once per
 * record, so decoding them for every record would be wasted. Holds a copy of just the properties'
 * bytes, not the message's. Keys and values longer than {@code maxLength} are cut to it.
 */
final class WireProperties extends AbstractMap<String, String> {
  private final byte[] bytes;
  /** Per pair: key offset, key length, value offset, value length (into {@link #bytes}). */
  private final int[] ranges;
  private final int maxLength;
  private Map<String, String> map;

  private WireProperties(byte[] bytes, int[] ranges, int maxLength) {
    this.bytes = bytes;
    this.ranges = ranges;
    this.maxLength = maxLength;
  }

  /** The pairs {@code ranges[0, 4 * count)} of {@code buf}, which lie within {@code [from, to)}. */
  static Map<String, String> of(byte[] buf, int from, int to, int[] ranges, int count, int maxLength) {
    if (count == 0) {
      return Map.of();
    }
    int[] own = Arrays.copyOf(ranges, count * 4);
    for (int i = 0; i < own.length; i += 2) {
      own[i] -= from;
    }
    return new WireProperties(Arrays.copyOfRange(buf, from, to), own, maxLength);
  }

  @Override
  public Set<Entry<String, String>> entrySet() {
    if (map == null) {
      Map<String, String> m = new LinkedHashMap<>();
      for (int i = 0; i < ranges.length; i += 4) {
        m.put(text(ranges[i], ranges[i + 1]), text(ranges[i + 2], ranges[i + 3]));
      }
      map = Map.copyOf(m);
    }
    return map.entrySet();
  }

  private String text(int offset, int length) {
    String s = new String(bytes, offset, length, StandardCharsets.UTF_8);
    return s.length() <= maxLength ? s : s.substring(0, maxLength);
  }
}
