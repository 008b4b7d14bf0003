package io.sextant.core.query.mqe;

/** One entry of a sorted (top_n) result. */
public record RankedValue(String name, double value) {
}
