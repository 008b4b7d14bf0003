package io.sextant.api.storage;

/** What an edge connects. */
public enum EdgeScope {
  SERVICE,
  SERVICE_INSTANCE
}
