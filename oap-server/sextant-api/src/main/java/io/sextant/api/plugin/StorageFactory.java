package io.sextant.api.plugin;

import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import io.sextant.api.storage.StorageComponent;
import java.util.List;

/**
 * Makes one storage backend. {@link #name()} is its value of {@code storage.selector}; {@link
 * #keys()} are the keys it reads (under {@code storage.<name>.}). {@code create} does no I/O.
 */
public interface StorageFactory {
  String name();

  List<ConfigKey> keys();

  StorageComponent create(Settings settings, MeterRegistry meters);
}
