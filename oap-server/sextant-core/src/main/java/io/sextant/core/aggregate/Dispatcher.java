package io.sextant.core.aggregate;

import io.sextant.api.model.Scope;

/**
 * Decides which entities a record feeds: one dispatcher per record kind, injected into the
 * aggregator, so the aggregator knows the mechanics (minutes, accumulators, bounds) and nothing of
 * what a scope means. Called on receivers' threads: must be thread-safe and must not block.
 */
public interface Dispatcher<R> {
  /** Calls {@code target.feed} once for each entity the record updates, with its SkyWalking id. */
  void dispatch(R record, Target target);

  /** Describes an entity the record fed; called once per accumulator, when it is created. */
  EntityRef entity(Scope scope, String entityId, R record);

  /** Where a dispatcher sends the entities a record feeds. */
  @FunctionalInterface
  interface Target {
    void feed(Scope scope, String entityId);
  }
}
