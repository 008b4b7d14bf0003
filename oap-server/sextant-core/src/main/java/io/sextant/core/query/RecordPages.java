package io.sextant.core.query;

/**
 * SkyWalking's paging of record queries (events, logs): pages of {@code pageSize} from {@code
 * pageNum} 1 (0 counts as 1), within the first {@code maxMatches} records, as Elasticsearch answers
 * at most that many hits by default.
 */
final class RecordPages {
  private RecordPages() {}

  /** Where the page starts among the matches; negative paging or a page past the cap throws why. */
  static long first(int pageNum, int pageSize, int maxMatches) {
    if (pageSize < 0 || pageNum < 0) {
      throw new IllegalArgumentException("paging needs a pageNum of 1 or more and a pageSize of 0 or more");
    }
    long from = (long) pageSize * ((pageNum == 0 ? 1 : pageNum) - 1);
    if (from + pageSize > maxMatches) {
      throw new IllegalArgumentException("pageNum × pageSize must not exceed " + maxMatches);
    }
    return from;
  }
}
