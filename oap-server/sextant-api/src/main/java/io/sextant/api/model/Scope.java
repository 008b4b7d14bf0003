package io.sextant.api.model;

/**
 * Every kind of entity Sextant knows, in one list: what a metric is about, what an edge connects and
 * what metadata describes. Code that must treat each kind switches over it with a switch
 * expression, so adding a kind makes the compiler list every place that must handle it. Ids of each
 * kind are spelled by {@link io.sextant.api.id.EntityIds}.
 */
public enum Scope {
  SERVICE,
  SERVICE_INSTANCE,
  ENDPOINT,
  SERVICE_RELATION,
  SERVICE_INSTANCE_RELATION,
  /** An operating-system process seen by SkyWalking Rover, under a service instance. */
  PROCESS,
  PROCESS_RELATION;

  public boolean isRelation() {
    return switch (this) {
      case SERVICE_RELATION, SERVICE_INSTANCE_RELATION, PROCESS_RELATION -> true;
      case SERVICE, SERVICE_INSTANCE, ENDPOINT, PROCESS -> false;
    };
  }

  /** Rover's kinds: ids are SkyWalking's process hashes, and no metadata is derived from their metrics. */
  public boolean isProcess() {
    return switch (this) {
      case PROCESS, PROCESS_RELATION -> true;
      case SERVICE, SERVICE_INSTANCE, ENDPOINT, SERVICE_RELATION, SERVICE_INSTANCE_RELATION -> false;
    };
  }
}
