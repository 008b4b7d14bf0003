package io.sextant.core.query.mqe;

/** One entry of a sorted (top_n) result, with the entity it belongs to (null if the source does not say). */
public record RankedValue(String name, double value, MqeOwner owner) {
  public RankedValue(String name, double value) {
    this(name, value, null);
  }
}
