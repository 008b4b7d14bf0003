package io.sextant.receiver.als;

import java.util.Optional;

/**
 * Resolves a workload from its IP address (e.g. through the Kubernetes API). Implementations answer
 * from a local cache and never block the caller on I/O.
 */
public interface PeerAddressResolver extends AutoCloseable {
  Optional<ServiceIdentity> byIp(String ip);

  @Override
  default void close() {}
}
