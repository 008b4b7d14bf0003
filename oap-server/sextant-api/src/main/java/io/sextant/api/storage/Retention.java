package io.sextant.api.storage;

/**
 * How long a backend keeps each kind of data, in days (rounded up where a backend counts finer),
 * as SkyWalking's TTL queries report it.
 */
public record Retention(int minuteDays, int hourDays, int dayDays, int recordDays) {}
