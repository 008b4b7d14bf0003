package io.sextant.storage.memory;

/** Bounds of the in-memory store: how many metric partials it keeps at most. */
public record MemoryStorageConfig(int maxPartials) {}
