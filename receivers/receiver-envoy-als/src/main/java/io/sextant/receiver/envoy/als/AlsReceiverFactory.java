package io.sextant.receiver.envoy.als;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.plugin.ReceiverContext;
import io.sextant.api.plugin.ReceiverFactory;
import io.sextant.api.receiver.Receiver;
import io.sextant.receiver.common.PeerAddressResolver;
import io.sextant.receiver.k8s.KubernetesPeers;
import io.sextant.receiver.k8s.ServiceNameRule;
import java.util.List;

/**
 * Makes the ALS receiver ({@code receiver.als.*}). With {@code receiver.als.kubernetes.enabled} the
 * receiver owns a Kubernetes client and pod watch, built and started in its {@code start()} and
 * closed in its {@code close()}; the naming rule is checked here, so a bad one fails at once.
 */
public final class AlsReceiverFactory implements ReceiverFactory {
  @Override
  public String name() {
    return AlsMetrics.RECEIVER;
  }

  @Override
  public List<ConfigKey> keys() {
    return AlsConfig.KEYS;
  }

  @Override
  public Receiver create(ReceiverContext context) {
    AlsConfig config = AlsConfig.load(context.settings());
    AlsConfig.Kubernetes k8s = config.kubernetes();
    PeerAddressResolver resolver = k8s.enabled()
        ? new KubernetesPeers(ServiceNameRule.parse(k8s.serviceNameRule()), context.meters(), k8s.maxPods())
        : null;
    return new AccessLogReceiver(context.sink(), context.records(), config, resolver, context.meters());
  }
}
