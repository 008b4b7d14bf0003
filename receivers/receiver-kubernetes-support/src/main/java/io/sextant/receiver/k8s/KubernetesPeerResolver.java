package io.sextant.receiver.k8s;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ExceptionHandler;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.receiver.common.PeerAddressResolver;
import io.sextant.receiver.common.ServiceIdentity;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resolves Envoy access-log peer addresses to workloads by watching Pods through the Kubernetes
 * API. A shared informer (list + watch, all namespaces) keeps an in-memory {@code podIP → identity}
 * map current, so {@link #byIp} is a hash lookup that never waits on the network.
 *
 * <p>Indexing rules: a pod is indexed under each of its IPs ({@code status.podIPs}, or
 * {@code status.podIP}) unless it has no IP yet, is in phase {@code Succeeded}/{@code Failed}, or
 * uses the host network (its IP is the node's, shared by many pods). When a pod's IPs change, the
 * stale entries are removed; when two pods claim one IP, the latest event wins and deleting the
 * older pod does not remove the newer one's entry. At most {@code maxPods} pods are cached; pods
 * beyond that are dropped (counted in {@code sextant_k8s_pods_dropped}) until room frees up.
 *
 * <p>Identity: service from the {@link ServiceNameRule} (falling back to the owner workload name
 * if the rule yields an empty string), instance {@code <pod>.<namespace>} (SkyWalking's name for an
 * instance found through the Kubernetes API), properties = {pod, namespace, node, ip}.
 *
 * <p>Metrics: gauge {@code sextant_k8s_pods_cached}, counters {@code sextant_k8s_lookups{result=hit|miss}}
 * and {@code sextant_k8s_pods_dropped}. Needs RBAC {@code list} and {@code watch} on pods cluster-wide.
 */
public final class KubernetesPeerResolver implements PeerAddressResolver {
  public static final int DEFAULT_MAX_PODS = 100_000;

  private static final Logger log = LoggerFactory.getLogger(KubernetesPeerResolver.class);

  private final KubernetesClient client;
  private final ServiceNameRule rule;
  private final int maxPods;
  private final MeterRegistry registry;

  /** Read lock-free by {@link #byIp}; written only under {@link #cacheLock}. */
  private final Map<String, Entry> byIp = new ConcurrentHashMap<>();
  /** "namespace/name" → the IPs it is indexed under; guarded by {@link #cacheLock}. */
  private final Map<String, Set<String>> ipsByPod = new HashMap<>();

  private final AtomicInteger cachedPods = new AtomicInteger();
  private final Counter hits;
  private final Counter misses;
  private final Counter dropped;
  private final List<Meter> meters = new ArrayList<>();
  /**
   * Guards the cache. Separate from the lifecycle monitor ({@code this}) so that closing the
   * informer never waits on a handler that waits on us.
   */
  private final Object cacheLock = new Object();
  private boolean warnedDrop;

  private SharedIndexInformer<Pod> informer; // guarded by this
  private volatile boolean closed;

  public KubernetesPeerResolver(KubernetesClient client, ServiceNameRule rule, MeterRegistry registry) {
    this(client, rule, registry, DEFAULT_MAX_PODS);
  }

  /**
   * @param client the API client (owned by the caller; not closed by {@link #close})
   * @param rule how service names are derived from pods
   * @param registry where self-metrics are registered (and removed from on {@link #close})
   * @param maxPods upper bound on cached pods, &gt; 0
   */
  public KubernetesPeerResolver(
      KubernetesClient client, ServiceNameRule rule, MeterRegistry registry, int maxPods) {
    if (maxPods <= 0) {
      throw new IllegalArgumentException("maxPods must be > 0, got " + maxPods);
    }
    this.client = Objects.requireNonNull(client, "client");
    this.rule = Objects.requireNonNull(rule, "rule");
    this.registry = Objects.requireNonNull(registry, "registry");
    this.maxPods = maxPods;
    meters.add(
        Gauge.builder("sextant_k8s_pods_cached", cachedPods, AtomicInteger::get)
            .description("Pods indexed by IP for Envoy access-log peer resolution")
            .register(registry));
    hits = counter(Counter.builder("sextant_k8s_lookups").tag("result", "hit"));
    misses = counter(Counter.builder("sextant_k8s_lookups").tag("result", "miss"));
    dropped =
        counter(
            Counter.builder("sextant_k8s_pods_dropped")
                .description("Pod index attempts rejected because maxPods was reached"));
  }

  /**
   * Starts the pod informer and returns at once; the cache fills as the initial list arrives (see
   * {@link #isSynced}). Connection failures are logged and retried with back-off by the informer.
   *
   * @throws IllegalStateException if already started or closed
   */
  @Override
  public synchronized void start() {
    if (closed) {
      throw new IllegalStateException("resolver is closed");
    }
    if (informer != null) {
      throw new IllegalStateException("resolver already started");
    }
    informer = client.pods().inAnyNamespace().runnableInformer(0);
    informer.exceptionHandler(
        (isStarted, t) -> {
          log.warn("Kubernetes pod watch failed (started={}); retrying: {}", isStarted, t.toString());
          return !ExceptionHandler.isDeserializationException(t);
        });
    informer.addEventHandler(
        new ResourceEventHandler<Pod>() {
          @Override
          public void onAdd(Pod pod) {
            upsert(pod);
          }

          @Override
          public void onUpdate(Pod oldPod, Pod newPod) {
            upsert(newPod);
          }

          @Override
          public void onDelete(Pod pod, boolean finalStateUnknown) {
            remove(key(pod));
          }
        });
    informer
        .start()
        .whenComplete(
            (ok, err) -> {
              if (err != null) {
                log.error("Kubernetes pod informer stopped; peer IPs will not resolve", err);
              } else {
                log.info("Kubernetes pod informer synced; {} pods cached", cachedPods.get());
              }
            });
  }

  /** True once the informer has completed its initial list. */
  public synchronized boolean isSynced() {
    return informer != null && informer.hasSynced();
  }

  @Override
  public Optional<ServiceIdentity> byIp(String ip) {
    Entry e = ip == null ? null : byIp.get(ip);
    if (e == null) {
      misses.increment();
      return Optional.empty();
    }
    hits.increment();
    return Optional.of(e.identity());
  }

  /** Number of pods currently cached. */
  public int cachedPods() {
    return cachedPods.get();
  }

  /** Stops the informer, clears the cache and unregisters the self-metrics. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (informer != null) {
      informer.close();
    }
    synchronized (cacheLock) {
      byIp.clear();
      ipsByPod.clear();
      cachedPods.set(0);
    }
    meters.forEach(registry::remove);
  }

  private void upsert(Pod pod) {
    synchronized (cacheLock) {
      if (!closed) {
        upsertLocked(pod);
      }
    }
  }

  private void upsertLocked(Pod pod) {
    String key = key(pod);
    Set<String> ips = indexableIps(pod);
    if (ips.isEmpty()) {
      removeLocked(key);
      return;
    }
    Set<String> previous = ipsByPod.get(key);
    if (previous == null && ipsByPod.size() >= maxPods) {
      dropped.increment();
      if (!warnedDrop) {
        warnedDrop = true;
        log.warn("Pod cache is full ({} pods); further pods are not resolvable (see sextant_k8s_pods_dropped)",
            maxPods);
      }
      return;
    }
    if (previous != null) {
      for (String old : previous) {
        if (!ips.contains(old)) {
          byIp.computeIfPresent(old, (ip, e) -> e.podKey().equals(key) ? null : e);
        }
      }
    }
    String service = rule.apply(pod);
    if (service.isEmpty()) {
      service = ServiceNameRule.ownerName(pod);
    }
    for (String ip : ips) {
      byIp.put(ip, new Entry(key, identity(pod, service, ip)));
    }
    ipsByPod.put(key, ips);
    cachedPods.set(ipsByPod.size());
  }

  private void remove(String key) {
    synchronized (cacheLock) {
      removeLocked(key);
    }
  }

  private void removeLocked(String key) {
    Set<String> ips = ipsByPod.remove(key);
    if (ips == null) {
      return;
    }
    for (String ip : ips) {
      byIp.computeIfPresent(ip, (k, e) -> e.podKey().equals(key) ? null : e);
    }
    cachedPods.set(ipsByPod.size());
  }

  private static Set<String> indexableIps(Pod pod) {
    PodStatus status = pod.getStatus();
    PodSpec spec = pod.getSpec();
    if (status == null
        || "Succeeded".equals(status.getPhase())
        || "Failed".equals(status.getPhase())
        || (spec != null && Boolean.TRUE.equals(spec.getHostNetwork()))) {
      return Set.of();
    }
    Set<String> ips = new LinkedHashSet<>();
    if (notEmpty(status.getPodIP())) {
      ips.add(status.getPodIP());
    }
    if (status.getPodIPs() != null) {
      for (PodIP podIp : status.getPodIPs()) {
        if (podIp != null && notEmpty(podIp.getIp())) {
          ips.add(podIp.getIp());
        }
      }
    }
    return ips;
  }

  private static ServiceIdentity identity(Pod pod, String service, String ip) {
    String name = orEmpty(pod.getMetadata().getName());
    String namespace = orEmpty(pod.getMetadata().getNamespace());
    Map<String, String> props = new LinkedHashMap<>();
    props.put("pod", name);
    props.put("namespace", namespace);
    props.put("node", pod.getSpec() == null ? "" : orEmpty(pod.getSpec().getNodeName()));
    props.put("ip", ip);
    return new ServiceIdentity(service, instanceName(name, namespace), Collections.unmodifiableMap(props));
  }

  /** SkyWalking's instance name for a pod found through the Kubernetes API: {@code <pod>.<namespace>}. */
  public static String instanceName(String pod, String namespace) {
    return namespace.isEmpty() ? pod : pod + "." + namespace;
  }

  private static String key(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }

  private Counter counter(Counter.Builder builder) {
    Counter c = builder.register(registry);
    meters.add(c);
    return c;
  }

  private static boolean notEmpty(String s) {
    return s != null && !s.isEmpty();
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }

  private record Entry(String podKey, ServiceIdentity identity) {}
}
