package io.sextant.core.aggregate;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.KernelRecord;
import io.sextant.api.model.Observation;
import io.sextant.api.model.Scope;
import io.sextant.api.receiver.Admission;
import io.sextant.api.receiver.RecordSink;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.metric.EncodedState;
import io.sextant.core.metric.MetricCatalog;
import io.sextant.core.metric.MetricGroup;
import io.sextant.core.metric.Source;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.StampedLock;

/**
 * The hot path: turns records into per-minute accumulators, one per (metric group, entity). Which
 * entities a record feeds is the injected {@link Dispatcher}'s decision; this class owns the
 * mechanics: minute slots, accumulators, sealing and bounds.
 *
 * <p>Bounded by {@code maxAccumulators}: past it new entities are refused with {@link
 * Admission#REJECTED_OVERLOADED} (existing ones still accumulate), so memory stays flat under an
 * entity explosion and the client is told to back off. Entities without {@link Standing} (never
 * seen in the last minutes) may hold at most half of it, so a flood of new names cannot take the
 * next minute from the services a mesh already has.
 *
 * <p>Durability is its {@link Journal}'s: every accepted observation is appended there before its
 * batch returns, and every collection is a cut of the journal (see there).
 */
public final class Aggregator implements RecordSink {
  /** Entities the newcomer count remembers, at least. */
  private static final int MIN_KNOWN = 100_000;
  private final MetricCatalog catalog;
  private final TimeBuckets buckets;
  private final AggregatorLimits limits;
  private final Dispatcher<Observation> dispatcher;
  private final ConcurrentHashMap<Long, Slot> slots = new ConcurrentHashMap<>();
  private final AtomicInteger openAccumulators = new AtomicInteger();
  private final AtomicInteger openNewcomers = new AtomicInteger();
  private final Standing standing;
  private final AtomicLong sequences = new AtomicLong();
  /** Collections that closed a minute, counted before its slot leaves the map (see {@link #closings}). */
  private final AtomicLong closings = new AtomicLong();
  /** Accepted observations by {@link Source}. */
  private final Counter[] accepted = new Counter[Source.values().length];
  private final Counter rejectedOverloaded;
  private final Counter rejectedNewEntities;
  private final Counter rejectedTimeRange;
  private volatile Slot lastSlot = new Slot(Long.MIN_VALUE, 0);
  private final Newcomers newcomers;
  /** Journaled batches hold it shared; a collection takes it exclusively (a cut). */
  private final StampedLock cutLock = new StampedLock(); // cheaper for readers than a ReentrantReadWriteLock
  private final Journal journal;
  /** The most accumulator units one record of each kind can open: one accumulator per group of its kind. */
  private final int[] unitsPerRecord = new int[Source.values().length];

  /** An aggregator that keeps nothing past the process. */
  public Aggregator(MetricCatalog catalog, Dispatcher<Observation> dispatcher, TimeBuckets buckets,
      AggregatorLimits limits, MeterRegistry registry) {
    this(catalog, dispatcher, buckets, limits, registry, Journal.NONE);
  }

  public Aggregator(MetricCatalog catalog, Dispatcher<Observation> dispatcher, TimeBuckets buckets,
      AggregatorLimits limits, MeterRegistry registry, Journal journal) {
    this.catalog = catalog;
    this.journal = journal;
    this.dispatcher = dispatcher;
    this.buckets = buckets;
    this.limits = limits;
    this.newcomers = new Newcomers(Math.max(MIN_KNOWN, limits.maxAccumulators()));
    this.standing = new Standing(catalog.groups().size(), limits.maxAccumulators());
    for (Source source : Source.values()) {
      accepted[source.ordinal()] = Counter.builder("sextant_records_accepted")
          .tag("kind", source.name().toLowerCase(Locale.ROOT)).register(registry);
    }
    this.rejectedOverloaded =
        Counter.builder("sextant_records_rejected").tag("reason", "overloaded").register(registry);
    this.rejectedTimeRange =
        Counter.builder("sextant_records_rejected").tag("reason", "time_range").register(registry);
    this.rejectedNewEntities =
        Counter.builder("sextant_records_rejected").tag("reason", "new_entities").register(registry);
    registry.gauge("sextant_aggregator_open_accumulators", openAccumulators);
    registry.gauge("sextant_aggregator_open_newcomer_accumulators", openNewcomers);
    for (MetricGroup g : catalog.groups()) {
      unitsPerRecord[g.source().ordinal()] += Accumulator.units(g.definitions().length);
    }
  }

  @Override
  public void batch(Runnable offers) {
    Journal.Batch b = journal.batch();
    if (b.open()) {
      offers.run();
      return;
    }
    long stamp = cutLock.readLock();
    b.begin();
    try {
      offers.run();
    } finally {
      try {
        b.end();
      } finally {
        cutLock.unlockRead(stamp);
      }
    }
  }

  @Override
  public Admission offer(Observation observation) {
    Journal.Batch b = journal.batch();
    if (!b.open()) {
      Admission[] answer = new Admission[1];
      batch(() -> answer[0] = offer(observation));
      return answer[0];
    }
    Source source = Source.of(observation);
    Admission admission = offer(observation, source);
    if (admission == Admission.ACCEPTED) {
      accepted[source.ordinal()].increment();
      b.append(observation);
    }
    return admission;
  }

  /**
   * Takes observations a previous run accepted and journaled but did not collect (recovery): no
   * time or size check, they were accepted once. Journaled again, as this run's.
   */
  public void replay(List<Observation> observations) {
    batch(() -> {
      Journal.Batch b = journal.batch();
      for (Observation r : observations) {
        long time = r.startTimeMillis() > 0 ? r.startTimeMillis() : buckets.nowMillis();
        apply(slot(buckets.minuteBucket(time)), r, Source.of(r));
        b.append(r);
      }
    });
  }

  private Admission offer(Observation r, Source source) {
    long now = buckets.nowMillis();
    long time = r.startTimeMillis() > 0 ? r.startTimeMillis() : now;
    if (time < now - limits.maxLateMinutes() * 60_000L || time > now + limits.maxFutureMinutes() * 60_000L) {
      rejectedTimeRange.increment();
      return Admission.REJECTED_TIME_RANGE;
    }
    Slot slot = slot(buckets.minuteBucket(time));
    // A record opens at most one accumulator per group of its kind: near a limit, take a record only
    // if it creates no accumulator that limit counts, so it is counted whole or not at all.
    int most = unitsPerRecord[source.ordinal()];
    boolean full = openAccumulators.get() > limits.maxAccumulators() - most;
    if (full || openNewcomers.get() > newcomerShare() - most) {
      int creates = creations(slot, r, source);
      if (full && creates != CREATES_NONE) {
        rejectedOverloaded.increment();
        return Admission.REJECTED_OVERLOADED;
      }
      if (creates == CREATES_NEWCOMER) {
        rejectedNewEntities.increment();
        return Admission.REJECTED_NEW_ENTITIES;
      }
    }
    apply(slot, r, source);
    return Admission.ACCEPTED;
  }

  /** How many accumulators entities without standing may hold at once. */
  private int newcomerShare() {
    return limits.maxAccumulators() / 2;
  }

  private void apply(Slot slot, Observation r, Source source) {
    int protocol = r instanceof CallRecord c ? c.protocol().ordinal()
        : r instanceof KernelRecord k ? k.protocol().ordinal() : -1;
    int tls = tlsKind(r.tlsMode());
    dispatcher.dispatch(r, (scope, id) -> add(slot, source, scope, id, r, protocol, tls));
  }

  private static final int CREATES_NONE = 0;
  private static final int CREATES_STANDING = 1;
  private static final int CREATES_NEWCOMER = 2;

  /** What accumulators the record would create: none, only for entities with standing, or a newcomer's (slow path). */
  private int creations(Slot slot, Observation r, Source source) {
    int[] creates = {CREATES_NONE};
    dispatcher.dispatch(r, (scope, id) -> {
      MetricGroup group = catalog.group(source, scope);
      if (group != null && !slot.maps[group.index()].containsKey(id)) {
        creates[0] = Math.max(creates[0], hasStanding(slot, group.index(), id) ? CREATES_STANDING : CREATES_NEWCOMER);
      }
    });
    return creates[0];
  }

  /** Seen in a recently collected minute, or open in another minute now. */
  private boolean hasStanding(Slot slot, int group, String id) {
    if (standing.has(group, id)) {
      return true;
    }
    for (Slot other : slots.values()) {
      if (other != slot && other.maps[group].containsKey(id)) {
        return true;
      }
    }
    return false;
  }

  private static final int NO_TLS = 0;
  private static final int TLS = 1;
  private static final int MTLS = 2;

  /** SkyWalking's TLS modes, once per record rather than once per entity it feeds. */
  private static int tlsKind(String tlsMode) {
    if (tlsMode == null) {
      return NO_TLS;
    }
    return switch (tlsMode) {
      case "TLS" -> TLS;
      case "mTLS" -> MTLS;
      default -> NO_TLS;
    };
  }

  private void add(Slot slot, Source source, Scope scope, String id, Observation r, int protocol, int tls) {
    MetricGroup group = catalog.group(source, scope);
    if (group == null) {
      return;
    }
    while (true) {
      ConcurrentHashMap<String, Accumulator> map = slot.maps[group.index()];
      Accumulator acc = map.get(id);
      if (acc == null) {
        Accumulator created = new Accumulator(dispatcher.entity(scope, id, r), sequences.incrementAndGet(),
            group.newStates());
        created.newcomer = !hasStanding(slot, group.index(), id);
        acc = map.putIfAbsent(id, created);
        if (acc == null) {
          acc = created;
          opened(created);
          newcomers.created(scope, id);
          journal.batch().opened();
          if (slot.retired && discard(map, created)) {
            // The flusher closed this minute while we inserted: use the minute's next slot.
            slot = slot(slot.minute);
            continue;
          }
        }
      }
      synchronized (acc) {
        if (!acc.sealed) {
          group.add(acc.states, r);
          acc.detectPoints |= 1 << r.detectPoint().ordinal();
          if (protocol >= 0) {
            acc.protocols |= 1 << protocol;
          }
          if (tls == TLS) {
            acc.tlsDetectPoints |= 1 << r.detectPoint().ordinal();
          } else if (tls == MTLS) {
            acc.mtlsDetectPoints |= 1 << r.detectPoint().ordinal();
          }
          acc.dirty = true;
          return;
        }
      }
      // Sealed by a flush that closed this minute: start a new accumulator for the late record.
      slot = slot(slot.minute);
    }
  }

  /** How many services, instances and relations got their first accumulator so far ({@link Newcomers}). */
  public long newcomers() {
    return newcomers.count();
  }

  /** Takes back an accumulator inserted into a retired slot, unless the flusher already owns it. */
  private boolean discard(ConcurrentHashMap<String, Accumulator> map, Accumulator acc) {
    synchronized (acc) {
      if (acc.sealed) {
        return false; // the flusher saw it: it will be written with the closed minute
      }
      acc.sealed = true;
    }
    map.remove(acc.entity.id(), acc);
    closed(acc);
    return true;
  }

  private void opened(Accumulator acc) {
    openAccumulators.addAndGet(acc.units());
    if (acc.newcomer) {
      openNewcomers.addAndGet(acc.units());
    }
  }

  private void closed(Accumulator acc) {
    openAccumulators.addAndGet(-acc.units());
    if (acc.newcomer) {
      openNewcomers.addAndGet(-acc.units());
    }
  }

  private Slot slot(long minute) {
    Slot s = lastSlot;
    if (s.minute == minute && !s.retired) {
      return s;
    }
    s = slots.computeIfAbsent(minute, m -> new Slot(m, catalog.groups().size()));
    lastSlot = s;
    return s;
  }

  /**
   * Copies what changed since the last call. Minutes older than {@code closeBefore} (or all, when
   * {@code closeAll}) are closed: their accumulators are removed and sealed, and records arriving
   * for them later start new accumulators. Called by one flusher thread at a time.
   */
  public List<Snapshot> collect(long closeBefore, boolean closeAll) {
    return collect(closeBefore, closeAll, true);
  }

  /**
   * As {@link #collect(long, boolean)}; without {@code includeOpen} only minutes that close are
   * taken (cheap: late records and just-closed minutes, so they leave the aggregator's memory).
   */
  public List<Snapshot> collect(long closeBefore, boolean closeAll, boolean includeOpen) {
    if (!journal.on()) {
      return collectNow(closeBefore, closeAll, includeOpen);
    }
    long started = System.nanoTime();
    long stamp = cutLock.writeLock();
    try {
      journal.cut();
      return collectNow(closeBefore, closeAll, includeOpen);
    } finally {
      cutLock.unlockWrite(stamp);
      journal.cutTook(System.nanoTime() - started);
    }
  }

  private List<Snapshot> collectNow(long closeBefore, boolean closeAll, boolean includeOpen) {
    List<Snapshot> out = new ArrayList<>();
    boolean counted = false;
    for (Iterator<Slot> it = slots.values().iterator(); it.hasNext(); ) {
      Slot slot = it.next();
      boolean close = closeAll || slot.minute < closeBefore;
      if (!close && !includeOpen) {
        continue;
      }
      if (close) {
        // Retire first: writers from now on use a fresh slot (a new accumulation of this minute);
        // a writer racing with us either lands in this slot's maps before we read them, or sees
        // the flag and takes its insertion back.
        if (!counted) {
          counted = true;
          closings.incrementAndGet();
        }
        it.remove();
        slot.retired = true;
        standing.closing(slot.minute);
      }
      for (int g = 0; g < slot.maps.length; g++) {
        MetricGroup group = catalog.groups().get(g);
        ConcurrentHashMap<String, Accumulator> map = slot.maps[g];
        for (Accumulator acc : map.values()) {
          synchronized (acc) {
            if (close) {
              if (acc.sealed) {
                continue; // taken back by its writer
              }
              acc.sealed = true;
            }
            if (acc.dirty || close) {
              acc.dirty = false;
              out.add(new Snapshot(group, acc.entity, slot.minute, acc.sequence, EncodedState.of(acc.states),
                  acc.detectPoints, acc.protocols, acc.tlsDetectPoints, acc.mtlsDetectPoints, close));
            }
          }
          if (close) {
            closed(acc);
            standing.closed(g, acc.entity.id());
          }
        }
      }
    }
    return out;
  }

  /** Receives one live accumulator's state of one metric (see {@link #peek}). */
  @FunctionalInterface
  public interface LiveState {
    void accept(String entityId, long minute, long sequence, EncodedState state);
  }

  /**
   * Copies the current state of metric {@code metricIndex} of {@code group} from every accumulator
   * of minutes {@code [startMinute, endMinute]} still in the aggregator, for {@code entityIds} (null:
   * all). Read-only: neither the changed flags nor sealing move, so collection is undisturbed.
   * Sealed accumulators are skipped: the flusher owns their last state.
   */
  public void peek(MetricGroup group, int metricIndex, Collection<String> entityIds, long startMinute,
      long endMinute, LiveState out) {
    for (Slot slot : slots.values()) {
      if (slot.minute < startMinute || slot.minute > endMinute) {
        continue;
      }
      ConcurrentHashMap<String, Accumulator> map = slot.maps[group.index()];
      if (entityIds == null) {
        map.values().forEach(acc -> peek(acc, metricIndex, slot.minute, out));
      } else {
        for (String id : entityIds) {
          Accumulator acc = map.get(id);
          if (acc != null) {
            peek(acc, metricIndex, slot.minute, out);
          }
        }
      }
    }
  }

  private static void peek(Accumulator acc, int metricIndex, long minute, LiveState out) {
    EncodedState state;
    synchronized (acc) {
      if (acc.sealed) {
        return;
      }
      state = EncodedState.of(acc.states[metricIndex]);
    }
    out.accept(acc.entity.id(), minute, acc.sequence, state);
  }

  /**
   * How many collections have started taking a closed minute out of the aggregator. A reader that
   * {@link #peek}ed and then sees this higher than the collections whose snapshots it can find
   * elsewhere may have missed accumulators on their way out.
   */
  public long closings() {
    return closings.get();
  }

  public int openAccumulators() {
    return openAccumulators.get();
  }

  public MetricCatalog catalog() {
    return catalog;
  }

  private static final class Slot {
    final long minute;
    final ConcurrentHashMap<String, Accumulator>[] maps;
    volatile boolean retired;

    @SuppressWarnings("unchecked")
    Slot(long minute, int groups) {
      this.minute = minute;
      this.maps = new ConcurrentHashMap[groups];
      for (int i = 0; i < groups; i++) {
        maps[i] = new ConcurrentHashMap<>();
      }
    }
  }
}
