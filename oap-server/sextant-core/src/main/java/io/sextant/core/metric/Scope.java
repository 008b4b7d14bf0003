package io.sextant.core.metric;

/** The kind of entity a metric is about; decides how a query names the entity. */
public enum Scope {
  SERVICE,
  SERVICE_INSTANCE,
  ENDPOINT,
  SERVICE_RELATION,
  SERVICE_INSTANCE_RELATION;

  public boolean isRelation() {
    return this == SERVICE_RELATION || this == SERVICE_INSTANCE_RELATION;
  }
}
