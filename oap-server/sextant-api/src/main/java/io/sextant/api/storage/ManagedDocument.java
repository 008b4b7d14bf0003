package io.sextant.api.storage;

/**
 * A small mutable document managed through the API (a UI template, a profiling task, a
 * continuous-profiling policy). {@code version} starts at 1 and grows by one with every update;
 * {@code body} is the owner's encoding (usually JSON), opaque to storage.
 */
public record ManagedDocument(String kind, String id, long version, long updatedMillis, String body) {}
