package io.sextant.api.storage;

import io.sextant.api.component.Component;
import io.sextant.api.time.TimeBuckets;

/** A storage backend: one component handing out a few narrow stores. */
public interface StorageComponent extends Component {
  MetricsStore metrics();

  TopologyStore topology();

  MetadataStore metadata();

  /**
   * Drops data past the backend's retention; called about once a minute. The buckets give the
   * current time and zone.
   */
  default void applyRetention(TimeBuckets buckets) {}

  /**
   * Makes everything written so far visible to queries; the flusher calls it after each write
   * cycle. Backends whose writes are visible at once do nothing.
   */
  default void publish() {}
}
