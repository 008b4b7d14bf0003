package io.sextant.core.dispatch;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many distinct endpoints and instances one service may have. Past its budget a service's new
 * endpoints (or instances) fold into one entity named {@link #OVERFLOW} under it, as SkyWalking's
 * endpoint grouping folds unknown paths: a service that puts ids in its paths, or reports every
 * pod as a new instance of one service, costs one entity more, not memory and accumulators that
 * well-behaved services then lack. Folded records are counted by kind and service (the first
 * {@link #NAMED_SERVICES} offending services by name, the rest together) and each offender is
 * logged once.
 */
public final class ChildBudgets {
  /** The entity a service's endpoints or instances past its budget fold into (the ALS receiver's name too). */
  public static final String OVERFLOW = "<overflow>";
  static final int NAMED_SERVICES = 100;
  private static final Logger LOG = LoggerFactory.getLogger(ChildBudgets.class);
  private final int endpoints;
  private final int instances;
  private final MeterRegistry registry;
  private final ConcurrentHashMap<String, Counter> counters = new ConcurrentHashMap<>();

  public ChildBudgets(int endpointsPerService, int instancesPerService, MeterRegistry registry) {
    this.endpoints = endpointsPerService;
    this.instances = instancesPerService;
    this.registry = registry;
  }

  /** No budget: every name is its own entity (tests, benchmarks). */
  public static ChildBudgets unlimited() {
    return new ChildBudgets(Integer.MAX_VALUE, Integer.MAX_VALUE, new SimpleMeterRegistry());
  }

  int endpoints() {
    return endpoints;
  }

  int instances() {
    return instances;
  }

  /** Counts one record of {@code service} folded into its {@code kind} overflow. */
  void folded(String kind, String service, int budget) {
    String key = kind + "|" + service;
    Counter c = counters.get(key);
    if (c == null) {
      boolean named = counters.size() < NAMED_SERVICES;
      c = Counter.builder("sextant_entities_folded").tag("kind", kind).tag("service", named ? service : "<others>")
          .description("records whose endpoint or instance was folded into its service's " + OVERFLOW
              + " entity (core.maxEndpointsPerService / core.maxInstancesPerService)").register(registry);
      if (named && counters.putIfAbsent(key, c) == null) {
        LOG.warn("service {} passed its budget of {} {}s: further ones fold into its {} {}", service, budget, kind,
            OVERFLOW, kind);
      }
    }
    c.increment();
  }
}
