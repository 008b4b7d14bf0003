package io.sextant.receiver.k8s;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import io.sextant.receiver.common.PeerAddressResolver;
import io.sextant.receiver.common.ServiceIdentity;
import java.util.List;
import java.util.Optional;

/**
 * A {@link KubernetesPeerResolver} that owns its API client: the client is built (from the
 * kubeconfig or the pod's service account) and the pod watch started in {@link #start()}, and both
 * are closed in {@link #close()}. Until started, nothing resolves. This is what a receiver holds;
 * the resolver itself takes a client so that tests can hand it a mock.
 */
public final class KubernetesPeers implements PeerAddressResolver {
  private final ServiceNameRule rule;
  private final MeterRegistry registry;
  private final int maxPods;
  private KubernetesClient client; // guarded by this
  private volatile KubernetesPeerResolver resolver;
  private boolean closed; // guarded by this

  public KubernetesPeers(ServiceNameRule rule, MeterRegistry registry, int maxPods) {
    this.rule = rule;
    this.registry = registry;
    this.maxPods = maxPods;
  }

  /**
   * The keys switching pod resolution on for a receiver, under {@code prefix} (e.g. {@code
   * receiver.als.kubernetes.}): {@code enabled} (described by {@code what}), {@code serviceNameRule},
   * {@code maxPods}. One set for every receiver that resolves peers, so they read alike.
   */
  public static List<ConfigKey> keys(String prefix, String what) {
    return List.of(
        ConfigKey.bool(prefix + "enabled", false, what),
        ConfigKey.string(prefix + "serviceNameRule", ServiceNameRule.DEFAULT_TEMPLATE,
            "how a pod found by IP is named"),
        ConfigKey.integer(prefix + "maxPods", KubernetesPeerResolver.DEFAULT_MAX_PODS, 1, 10_000_000,
            "pods cached by IP"));
  }

  /** The resolver {@link #keys} under {@code prefix} ask for, or null when they leave it off. */
  public static KubernetesPeers fromSettings(Settings settings, String prefix, MeterRegistry registry) {
    return settings.bool(prefix + "enabled")
        ? new KubernetesPeers(ServiceNameRule.parse(settings.string(prefix + "serviceNameRule")), registry,
            settings.integer(prefix + "maxPods"))
        : null;
  }

  @Override
  public synchronized void start() {
    if (closed || client != null) {
      return;
    }
    client = new KubernetesClientBuilder().build();
    KubernetesPeerResolver r = new KubernetesPeerResolver(client, rule, registry, maxPods);
    r.start();
    resolver = r;
  }

  @Override
  public Optional<ServiceIdentity> byIp(String ip) {
    KubernetesPeerResolver r = resolver;
    return r == null ? Optional.empty() : r.byIp(ip);
  }

  /** Stops the watch, then closes the client. Idempotent and safe without a start. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (resolver != null) {
      resolver.close();
    }
    if (client != null) {
      client.close();
    }
  }
}
