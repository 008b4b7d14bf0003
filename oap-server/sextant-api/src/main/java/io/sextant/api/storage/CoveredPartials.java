package io.sextant.api.storage;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Drops the partials a compacted partial of the same metric, entity and bucket covers. Compaction
 * writes the merged partial before it deletes the ones merged, and a deleted partial may still be
 * queued, cached or resent somewhere, so every reader resolves what it found: each accepted record
 * is then counted once, whichever copies a read happens to see.
 */
public final class CoveredPartials {
  private CoveredPartials() {}

  public static List<MetricPartial> resolve(List<MetricPartial> found) {
    Set<Covered> covered = null;
    for (MetricPartial p : found) {
      if (!p.covers().isEmpty()) {
        if (covered == null) {
          covered = new HashSet<>();
        }
        for (String k : p.covers()) {
          covered.add(new Covered(p.metric(), p.entityId(), p.bucket(), k));
        }
      }
    }
    if (covered == null) {
      return found;
    }
    List<MetricPartial> out = new ArrayList<>(found.size());
    for (MetricPartial p : found) {
      if (!covered.contains(new Covered(p.metric(), p.entityId(), p.bucket(), p.key()))) {
        out.add(p);
      }
    }
    return out;
  }

  private record Covered(String metric, String entityId, long bucket, String key) {}
}
