package io.sextant.core.topology;

import io.sextant.api.storage.Edge;
import io.sextant.api.storage.EndpointMeta;
import io.sextant.api.storage.InstanceMeta;
import io.sextant.api.storage.ServiceMeta;

/** Where the entity registry queues the metadata and edges it derives (the flusher's write queue). */
public interface EntitySink {
  void service(ServiceMeta service);

  void instance(InstanceMeta instance);

  void endpoint(EndpointMeta endpoint);

  void edge(long minuteBucket, Edge edge);
}
