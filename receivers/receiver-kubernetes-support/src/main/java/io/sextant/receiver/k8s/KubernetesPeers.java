package io.sextant.receiver.k8s;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.receiver.common.PeerAddressResolver;
import io.sextant.receiver.common.ServiceIdentity;
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
