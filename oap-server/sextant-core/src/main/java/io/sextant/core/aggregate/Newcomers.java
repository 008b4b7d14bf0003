package io.sextant.core.aggregate;

import io.sextant.api.model.Scope;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the services, instances and relations that get their first accumulator, so the flusher
 * writes soon after one appears and a new node or edge shows in a topology within seconds, not at
 * the next interval. Endpoints are left out: there are many, and a list of them is searched, not
 * watched. Bounded: past {@code maxKnown} entities it forgets them all, which only brings a
 * collection forward once more. Thread-safe.
 */
final class Newcomers {
  private final int maxKnown;
  private final Set<String> known = ConcurrentHashMap.newKeySet();
  private final AtomicLong count = new AtomicLong();

  Newcomers(int maxKnown) {
    this.maxKnown = maxKnown;
  }

  /** An accumulator was created for entity {@code id} of {@code scope}. */
  void created(Scope scope, String id) {
    if (tells(scope) && known.add(id)) {
      if (known.size() > maxKnown) {
        known.clear();
      }
      count.incrementAndGet();
    }
  }

  long count() {
    return count.get();
  }

  private static boolean tells(Scope scope) {
    return switch (scope) {
      case ENDPOINT -> false;
      case SERVICE, SERVICE_INSTANCE, SERVICE_RELATION, SERVICE_INSTANCE_RELATION, PROCESS, PROCESS_RELATION -> true;
    };
  }
}
