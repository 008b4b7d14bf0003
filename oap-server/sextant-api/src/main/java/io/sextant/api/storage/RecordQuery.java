package io.sextant.api.storage;

import java.util.Collection;
import java.util.List;

/**
 * Records of one kind in {@code [startMillis, endMillis]}, about any of {@code entityIds} (null: any
 * entity), carrying every tag in {@code tags}; newest first, at most {@code limit}.
 */
public record RecordQuery(
    String kind, Collection<String> entityIds, long startMillis, long endMillis, List<String> tags, int limit) {
  public RecordQuery {
    tags = List.copyOf(tags);
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be positive: " + limit);
    }
  }
}
