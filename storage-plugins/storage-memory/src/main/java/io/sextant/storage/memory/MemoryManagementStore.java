package io.sextant.storage.memory;

import io.sextant.api.storage.ManagedDocument;
import io.sextant.api.storage.ManagementStore;
import io.sextant.api.storage.VersionConflictException;
import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Documents by (kind, id). Each put is one atomic {@code compute}, so the version check and the
 * write cannot interleave with another writer's. At most {@code maxDocuments}: past it creating one
 * fails instead of evicting, since these documents are configuration nobody would recreate.
 */
final class MemoryManagementStore implements ManagementStore {
  private final ConcurrentHashMap<Key, ManagedDocument> documents = new ConcurrentHashMap<>();
  private final int maxDocuments;
  private final Clock clock;

  MemoryManagementStore(int maxDocuments, Clock clock) {
    this.maxDocuments = maxDocuments;
    this.clock = clock;
  }

  private record Key(String kind, String id) {}

  @Override
  public Optional<ManagedDocument> get(String kind, String id) {
    return Optional.ofNullable(documents.get(new Key(kind, id)));
  }

  @Override
  public List<ManagedDocument> list(String kind) {
    return documents.values().stream().filter(d -> d.kind().equals(kind))
        .sorted(Comparator.comparing(ManagedDocument::id)).toList();
  }

  @Override
  public ManagedDocument put(String kind, String id, String body, long expectedVersion) {
    if (expectedVersion == 0 && documents.size() >= maxDocuments) {
      // Checked before the create, so concurrent creates may pass it by a few: a soft bound.
      throw new IllegalStateException("the memory store holds " + maxDocuments
          + " management documents already (storage.memory.maxManagementDocuments)");
    }
    return documents.compute(new Key(kind, id), (k, current) -> {
      long version = current == null ? 0 : current.version();
      if (version != expectedVersion) {
        throw new VersionConflictException(kind, id, expectedVersion);
      }
      return new ManagedDocument(kind, id, version + 1, clock.millis(), body);
    });
  }

  @Override
  public boolean delete(String kind, String id) {
    return documents.remove(new Key(kind, id)) != null;
  }

  @Override
  public boolean delete(String kind, String id, long expectedVersion) {
    boolean[] removed = {false};
    documents.computeIfPresent(new Key(kind, id), (k, current) -> {
      if (current.version() != expectedVersion) {
        throw new VersionConflictException(kind, id, expectedVersion);
      }
      removed[0] = true;
      return null;
    });
    return removed[0];
  }

  int size() {
    return documents.size();
  }
}
