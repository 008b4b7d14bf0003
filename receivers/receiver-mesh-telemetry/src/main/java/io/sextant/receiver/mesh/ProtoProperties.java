package io.sextant.receiver.mesh;

import java.util.AbstractMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.skywalking.apm.network.common.v3.KeyStringValuePair;

/**
 * Instance properties as a read-only map over the protobuf list, built only when read. The
 * aggregator reads them once per new instance per minute, not once per record, so copying them
 * eagerly would cost two maps per record for nothing.
 */
final class ProtoProperties extends AbstractMap<String, String> {
  private final List<KeyStringValuePair> pairs;
  private final int maxLength;
  private Map<String, String> map;

  private ProtoProperties(List<KeyStringValuePair> pairs, int maxLength) {
    this.pairs = pairs;
    this.maxLength = maxLength;
  }

  static Map<String, String> of(List<KeyStringValuePair> pairs, int maxLength) {
    return pairs.isEmpty() ? Map.of() : new ProtoProperties(pairs, maxLength);
  }

  @Override
  public Set<Entry<String, String>> entrySet() {
    if (map == null) {
      Map<String, String> m = new LinkedHashMap<>();
      for (KeyStringValuePair p : pairs) {
        m.put(truncate(p.getKey()), truncate(p.getValue()));
      }
      map = Map.copyOf(m);
    }
    return map.entrySet();
  }

  private String truncate(String s) {
    return s.length() <= maxLength ? s : s.substring(0, maxLength);
  }
}
