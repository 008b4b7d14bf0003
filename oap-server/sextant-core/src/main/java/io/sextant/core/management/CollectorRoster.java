package io.sextant.core.management;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sextant.api.storage.ManagedDocument;
import io.sextant.api.storage.ManagementStore;
import io.sextant.api.storage.VersionConflictException;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;

/**
 * The collectors that share a storage, each listing itself: one management document per collector
 * (kind {@value #KIND}, id its collector id), rewritten every beat. A collector whose document is
 * older than {@link #LIVE_BEATS} beats is gone; one older than {@link #FORGOTTEN_BEATS} beats is
 * removed by whichever collector sees it first (a version-checked delete, so two never race). No
 * coordinator: every collector can answer who the others are from the storage they already share.
 */
public final class CollectorRoster {
  public static final String KIND = "collector";
  static final int LIVE_BEATS = 3;
  static final int FORGOTTEN_BEATS = 60;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One collector: where its receivers and its query port listen, when it started and was last seen. */
  public record Member(String collectorId, String host, int grpcPort, int httpPort, long startedMillis,
      long seenMillis) {}

  private record Body(String host, int grpcPort, int httpPort, long startedMillis) {}

  private final Supplier<ManagementStore> store;
  private final String collectorId;
  private final Body self;
  private final Clock clock;
  private final Duration beat;
  private long version;

  public CollectorRoster(Supplier<ManagementStore> store, String collectorId, String host, int grpcPort,
      int httpPort, Clock clock, Duration beat) {
    this.store = store;
    this.collectorId = collectorId;
    this.self = new Body(host, grpcPort, httpPort, clock.millis());
    this.clock = clock;
    this.beat = beat;
  }

  public String collectorId() {
    return collectorId;
  }

  public Duration interval() {
    return beat;
  }

  /** Rewrites this collector's document (taking it over if another process left it) and forgets the long gone. */
  public synchronized void beat() {
    ManagementStore s = store.get();
    String body = encode(self);
    try {
      version = s.put(KIND, collectorId, body, version).version();
    } catch (VersionConflictException e) {
      // A restart under the same id, or a store that lost the document: continue from what is there.
      version = s.get(KIND, collectorId).map(ManagedDocument::version).orElse(0L);
      version = s.put(KIND, collectorId, body, version).version();
    }
    long forgotten = clock.millis() - beat.multipliedBy(FORGOTTEN_BEATS).toMillis();
    for (ManagedDocument d : s.list(KIND)) {
      if (d.updatedMillis() < forgotten && !d.id().equals(collectorId)) {
        try {
          s.delete(KIND, d.id(), d.version());
        } catch (VersionConflictException e) {
          // It came back, or another collector removed it first.
        }
      }
    }
  }

  /** Removes this collector's document on a clean stop, so it leaves the list at once. */
  public synchronized void leave() {
    if (version > 0) {
      ManagementStore s = store.get();
      try {
        s.delete(KIND, collectorId, version);
      } catch (VersionConflictException e) {
        // A beat the stop interrupted may have written a version it never learnt: still this run's
        // if the body is (the start stamp tells runs apart). Someone else's is theirs to keep.
        s.get(KIND, collectorId).filter(d -> d.body().equals(encode(self))).ifPresent(d -> {
          try {
            s.delete(KIND, collectorId, d.version());
          } catch (VersionConflictException again) {
            // It moved on once more: whoever wrote it keeps it.
          }
        });
      }
      version = 0;
    }
  }

  /** The collectors seen within the last {@link #LIVE_BEATS} beats, this one first, then by id. */
  public List<Member> live() {
    long since = clock.millis() - beat.multipliedBy(LIVE_BEATS).toMillis();
    return store.get().list(KIND).stream()
        .filter(d -> d.updatedMillis() >= since || d.id().equals(collectorId))
        .map(CollectorRoster::member)
        .sorted(Comparator.comparing((Member m) -> !m.collectorId().equals(collectorId))
            .thenComparing(Member::collectorId))
        .toList();
  }

  private static Member member(ManagedDocument d) {
    try {
      Body b = JSON.readValue(d.body(), Body.class);
      return new Member(d.id(), b.host(), b.grpcPort(), b.httpPort(), b.startedMillis(), d.updatedMillis());
    } catch (JsonProcessingException e) {
      return new Member(d.id(), "", 0, 0, 0, d.updatedMillis());
    }
  }

  private static String encode(Body b) {
    try {
      return JSON.writeValueAsString(b);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
