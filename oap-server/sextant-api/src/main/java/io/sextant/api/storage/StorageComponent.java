package io.sextant.api.storage;

import io.sextant.api.component.Component;
import io.sextant.api.time.TimeBuckets;

/**
 * A storage backend: one component handing out a few narrow stores. Facets added later have default
 * bodies that refuse with the backend's name, so a backend can gain them one at a time.
 */
public interface StorageComponent extends Component {
  MetricsStore metrics();

  TopologyStore topology();

  MetadataStore metadata();

  /** Append-only records (profiling samples, sampled calls, events). */
  default RecordStore records() {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " has no record store");
  }

  /** Small versioned documents (UI templates, profiling tasks, policies). */
  default ManagementStore management() {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " has no management store");
  }

  /** How long each kind of data is kept. */
  default Retention retention() {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " does not report its retention");
  }

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
