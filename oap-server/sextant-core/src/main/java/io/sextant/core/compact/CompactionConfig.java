package io.sextant.core.compact;

/**
 * When compaction runs ({@code core.compact*}): minutes at least {@code afterMinutes} old (0: never),
 * looked for every {@code intervalSeconds}, each pass also looking at the {@code lookbackMinutes}
 * before the newest due one.
 */
public record CompactionConfig(int afterMinutes, int intervalSeconds, int lookbackMinutes) {
  public boolean on() {
    return afterMinutes > 0;
  }
}
