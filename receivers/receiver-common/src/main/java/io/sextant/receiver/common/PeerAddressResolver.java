package io.sextant.receiver.common;

import io.sextant.api.component.Component;
import java.util.Optional;

/**
 * Resolves a workload from its IP address (e.g. through the Kubernetes API). Implementations answer
 * from a local cache and never block the caller on I/O; {@link #start()} begins filling the cache.
 * Lives here rather than in a receiver so that every receiver and resolver library can share it.
 */
public interface PeerAddressResolver extends Component {
  Optional<ServiceIdentity> byIp(String ip);

  @Override
  default void close() {}
}
