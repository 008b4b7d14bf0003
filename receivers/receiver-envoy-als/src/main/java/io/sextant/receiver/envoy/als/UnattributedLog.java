package io.sextant.receiver.envoy.als;

import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * At most one log line per interval about entries that could not be attributed: how many by
 * reason, and one example proxy with the address that did not resolve, so an operator can see why
 * a mesh stays empty. The counters ({@code sextant_als_entries_dropped}) say how many; this says who.
 * Memory is bounded: reasons are a fixed small set and only one example is kept.
 */
final class UnattributedLog {
  private static final Logger log = LoggerFactory.getLogger(UnattributedLog.class);
  static final long DEFAULT_INTERVAL_MILLIS = 60_000;

  private final long intervalMillis;
  private final Map<String, Long> counts = new TreeMap<>(); // guarded by this
  private String example; // guarded by this
  private long windowStart; // guarded by this

  UnattributedLog(long intervalMillis) {
    this.intervalMillis = intervalMillis;
  }

  /** Notes {@code count} entries of one proxy dropped for {@code reason}; logs if the interval is over. */
  void note(String reason, long count, String nodeId, String detail) {
    String line = null;
    long now = System.currentTimeMillis();
    synchronized (this) {
      counts.merge(reason, count, Long::sum);
      if (example == null) {
        example = "proxy '" + shorten(nodeId) + "' (" + reason + (detail.isEmpty() ? "" : ", " + detail) + ")";
      }
      if (windowStart == 0 || now - windowStart >= intervalMillis) {
        line = "Envoy access-log entries not attributed to any service since the last report, by reason: "
            + counts + "; for example " + example
            + ". See docs/istio.md: a proxy needs Istio node metadata or, with receiver.als.kubernetes.enabled,"
            + " a pod whose IP matches its address.";
        counts.clear();
        example = null;
        windowStart = now;
      }
    }
    if (line != null) {
      log.warn(line);
    }
  }

  private static String shorten(String s) {
    String v = s == null || s.isEmpty() ? "<no node id>" : s;
    return v.length() > 200 ? v.substring(0, 200) + "..." : v;
  }
}
