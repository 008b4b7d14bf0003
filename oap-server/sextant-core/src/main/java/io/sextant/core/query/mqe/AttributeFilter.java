package io.sextant.core.query.mqe;

/**
 * One top_n attribute condition, e.g. {@code attr0='MESH'} ({@code equal}) or {@code attr1!='x'}. Attributes
 * attr0..attr5 are the entity's attributes in SkyWalking; Sextant sets attr0 (the layer) for services and endpoints
 * and leaves the others empty.
 */
public record AttributeFilter(String attribute, boolean equal, String value) {
  /** Whether an entity whose attribute has {@code actual} (empty when unset) passes. */
  public boolean accepts(String actual) {
    return value.equals(actual == null ? "" : actual) == equal;
  }

  @Override
  public String toString() {
    return attribute + (equal ? "=" : "!=") + "'" + value + "'";
  }
}
