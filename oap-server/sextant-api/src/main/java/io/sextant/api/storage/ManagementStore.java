package io.sextant.api.storage;

import java.util.List;
import java.util.Optional;

/**
 * Small documents by kind and id, changed with optimistic versioning, so two collectors writing the
 * same document never lose an update silently: every write names the version it replaces.
 */
public interface ManagementStore {
  Optional<ManagedDocument> get(String kind, String id);

  /** Every document of a kind, by id. */
  List<ManagedDocument> list(String kind);

  /**
   * Creates ({@code expectedVersion == 0}) or replaces the document whose current version is {@code
   * expectedVersion}; returns it as stored, at version {@code expectedVersion + 1}.
   *
   * @throws VersionConflictException when the current version is another one (or, for a create,
   *     the document exists)
   */
  ManagedDocument put(String kind, String id, String body, long expectedVersion);

  /** Removes the document; false if there was none. */
  boolean delete(String kind, String id);

  /**
   * Removes the document only if its current version is {@code expectedVersion}, so a removal never
   * undoes a write it did not see; false if there was none.
   *
   * @throws VersionConflictException when the current version is another one
   */
  boolean delete(String kind, String id, long expectedVersion);
}
