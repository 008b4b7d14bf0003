package io.sextant.core.query;

/** One entity of a ranking: its SkyWalking id and the average of its values over the duration. */
public record RankedEntity(String entityId, double value) {}
