package io.sextant.core.metric;

import java.util.List;

/**
 * One metric family (mesh, Envoy, and next process metrics) declared as rows. Families are peers:
 * the server lists them and {@link MetricCatalog#of} indexes them together.
 */
public interface MetricTable {
  List<MetricDefinition> definitions();
}
