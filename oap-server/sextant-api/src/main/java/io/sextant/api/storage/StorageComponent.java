package io.sextant.api.storage;

import io.sextant.api.component.Component;

/** A storage backend: one component handing out a few narrow stores. */
public interface StorageComponent extends Component {
  MetricsStore metrics();

  TopologyStore topology();

  MetadataStore metadata();
}
