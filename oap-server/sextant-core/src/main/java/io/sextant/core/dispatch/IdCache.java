package io.sextant.core.dispatch;

import io.sextant.api.id.EntityIds;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Caches SkyWalking-encoded ids by name, so the hot path does not base64-encode every record, and
 * holds the names each service's budgets admitted. Bounded by {@code maxEntries} ids and by an
 * estimate of its bytes ({@code maxBytes}, a 32nd of the heap by default): past either it forgets
 * everything and fills again from live traffic, so a flood of names costs recomputed ids (and
 * budgets counted anew), never the heap.
 */
final class IdCache {
  /** An entry's fixed cost (map node, key and value objects); the characters are added per entry. */
  private static final int ENTRY_BYTES = 112;
  /** A service's own cost beyond its entry: its five maps. */
  private static final int SERVICE_BYTES = 5 * 64;

  private volatile ConcurrentHashMap<String, ServiceIds> services = new ConcurrentHashMap<>();
  private final AtomicInteger size = new AtomicInteger();
  private final AtomicLong bytes = new AtomicLong();
  private final int maxEntries;
  private final long maxBytes;

  private final ChildBudgets budgets;

  IdCache(int maxEntries, ChildBudgets budgets) {
    this(maxEntries, Runtime.getRuntime().maxMemory() / 32, budgets);
  }

  IdCache(int maxEntries, long maxBytes, ChildBudgets budgets) {
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
    this.budgets = budgets;
  }

  /** Ids cached, and their estimated bytes (for tests and gauges). */
  int size() {
    return size.get();
  }

  long bytes() {
    return bytes.get();
  }

  /** Counts an entry of {@code chars} characters; false (and all forgotten) past a bound. */
  private boolean room(int chars) {
    if (size.incrementAndGet() > maxEntries || bytes.addAndGet(ENTRY_BYTES + 2L * chars) > maxBytes) {
      services = new ConcurrentHashMap<>();
      size.set(0);
      bytes.set(0);
      return false;
    }
    return true;
  }

  /** The ids of a (normal) service and of what is under it. */
  ServiceIds idsOf(String serviceName) {
    ServiceIds ids = services.get(serviceName);
    if (ids != null) {
      return ids;
    }
    ids = new ServiceIds(serviceName, EntityIds.serviceId(serviceName, true));
    if (room(SERVICE_BYTES / 2 + serviceName.length() + ids.id.length())) {
      ServiceIds prior = services.putIfAbsent(serviceName, ids);
      if (prior != null) {
        return prior;
      }
    }
    return ids;
  }

  /** Ids under one service: its instances and endpoints, and relations to other services. */
  final class ServiceIds {
    final String name;
    final String id;
    // Instances and endpoints share one encoding (service id + "_" + base64(name)), so one map.
    private final ConcurrentHashMap<String, String> children = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, String> relations = new ConcurrentHashMap<>();
    // Source instance name -> destination instance id -> relation id: built once instead of
    // concatenating (and then hashing) a new id string for every record.
    private final ConcurrentHashMap<String, ConcurrentHashMap<String, String>> instanceRelations =
        new ConcurrentHashMap<>();

    // The names within the service's budgets (kept whatever the id cache's bound: the budget is the bound).
    private final Set<String> admittedInstances = ConcurrentHashMap.newKeySet();
    private final Set<String> admittedEndpoints = ConcurrentHashMap.newKeySet();

    ServiceIds(String name, String id) {
      this.name = name;
      this.id = id;
    }

    /**
     * {@code instanceName}, or {@link ChildBudgets#OVERFLOW} past the service's instance budget;
     * {@code count}: a record is being folded (not an entity being described again).
     */
    String instanceName(String instanceName, boolean count) {
      return admit(admittedInstances, instanceName, budgets.instances(), "instance", count);
    }

    /** As {@link #instanceName} for endpoints. */
    String endpointName(String endpointName, boolean count) {
      return admit(admittedEndpoints, endpointName, budgets.endpoints(), "endpoint", count);
    }

    private String admit(Set<String> admitted, String childName, int budget, String kind, boolean count) {
      if (budget == Integer.MAX_VALUE || admitted.contains(childName)) {
        return childName;
      }
      if (admitted.size() >= budget) {
        if (count) {
          budgets.folded(kind, name, budget);
        }
        return ChildBudgets.OVERFLOW;
      }
      if (room(childName.length())) {
        admitted.add(childName); // racing threads may pass the budget by a name or two
      }
      return childName;
    }

    String instance(String instanceName) {
      return child(instanceName);
    }

    String endpoint(String endpointName) {
      return child(endpointName);
    }

    private String child(String childName) {
      String childId = children.get(childName);
      if (childId == null) {
        childId = EntityIds.instanceId(id, childName);
        remember(children, childName, childId);
      }
      return childId;
    }

    String relationTo(String destServiceId) {
      String relationId = relations.get(destServiceId);
      if (relationId == null) {
        relationId = EntityIds.relationId(id, destServiceId);
        remember(relations, destServiceId, relationId);
      }
      return relationId;
    }

    /** The relation from this service's instance {@code sourceInstanceName} to {@code destInstanceId}. */
    String instanceRelation(String sourceInstanceName, String destInstanceId) {
      ConcurrentHashMap<String, String> byDest = instanceRelations.get(sourceInstanceName);
      String relationId = byDest == null ? null : byDest.get(destInstanceId);
      if (relationId == null) {
        relationId = EntityIds.relationId(instance(sourceInstanceName), destInstanceId);
        if (byDest == null && room(sourceInstanceName.length() + 32)) {
          byDest = instanceRelations.computeIfAbsent(sourceInstanceName, k -> new ConcurrentHashMap<>());
        }
        if (byDest != null) {
          remember(byDest, destInstanceId, relationId);
        }
      }
      return relationId;
    }

    private void remember(ConcurrentHashMap<String, String> map, String key, String value) {
      if (!map.containsKey(key) && room(key.length() + value.length())) {
        map.putIfAbsent(key, value);
      }
    }
  }
}
