package io.sextant.storage.memory;

/**
 * Bounds of the in-memory store: how many metric partials it keeps at most, and how long minute,
 * hour and day data are kept.
 */
public record MemoryStorageConfig(
    int maxPartials, int minuteRetentionMinutes, int hourRetentionHours, int dayRetentionDays) {

  /** The given bound with the default retention (a day of minutes, a week of hours, 30 days). */
  public MemoryStorageConfig(int maxPartials) {
    this(maxPartials, 1440, 168, 30);
  }
}
