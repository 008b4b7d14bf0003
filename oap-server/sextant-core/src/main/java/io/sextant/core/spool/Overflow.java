package io.sextant.core.spool;

import io.sextant.api.storage.PartialRow;
import io.sextant.api.time.Step;
import io.sextant.core.flush.OverflowStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Partial rows the write queue had no room for in memory while storage was away: on disk in the
 * run's spool directory, oldest first, until storage takes them. Without it the queue drops its
 * oldest rows, and a collector that lives through a long outage loses them although its spool
 * still holds the cuts they came from.
 *
 * <p>Segment files {@code rows-<n>.log} of frames of encoded rows. Rows are appended to the
 * newest; a failed batch whose rows have newer versions here already goes in front as a new
 * oldest segment, so every version of a row reaches storage in the order it was made. The live
 * run reads it back; a dead run's successor does not need it (the cuts stay while rows wait here,
 * and it rebuilds everything from them). Bounded together with the spool ({@code maxBytes} for
 * both): past it the oldest segments go, and the caller counts their rows as dropped.
 */
public final class Overflow implements OverflowStore {
  private static final long SEGMENT_BYTES = 4 << 20;
  private static final int FRAME_BYTES = 1 << 20;
  /** Rows of one segment put in front (a failed batch may be the whole write queue). */
  private static final int SEGMENT_ROWS = 10_000;
  private static final Step[] STEPS = Step.values();
  private static final int CLOSED = 0x80;
  private final Path dir;
  private final long maxBytes;
  /** All the spool's bytes, these included. */
  private final LongSupplier spoolBytes;
  private final TreeMap<Long, Segment> segments = new TreeMap<>();
  /** The newest segment while it is appended to; null once read or before the first append. */
  private FrameFile tail;
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong rows = new AtomicLong();

  private static final class Segment {
    final Path path;
    long bytes;
    long rows;

    Segment(Path path) {
      this.path = path;
    }
  }

  Overflow(Path dir, long maxBytes, LongSupplier spoolBytes) {
    this.dir = dir;
    this.maxBytes = maxBytes;
    this.spoolBytes = spoolBytes;
  }

  /** Appends rows as the newest; returns how many older rows the bound dropped to make room. */
  @Override
  public synchronized long append(List<PartialRow> newest) {
    if (newest.isEmpty()) {
      return 0;
    }
    if (tail == null || segments.lastEntry().getValue().bytes > SEGMENT_BYTES) {
      closeTail();
      long n = segments.isEmpty() ? 0 : segments.lastKey() + 1;
      tail = FrameFile.create(path(n));
      segments.put(n, new Segment(tail.path()));
    }
    write(tail, segments.lastEntry().getValue(), newest);
    return bound();
  }

  /** Puts rows in front of everything here (older versions than those here); returns rows dropped. */
  @Override
  public synchronized long prepend(List<PartialRow> oldest) {
    if (oldest.isEmpty()) {
      return 0;
    }
    // Segments of a bounded size, so reading one back never holds more than that in memory.
    int chunks = (oldest.size() + SEGMENT_ROWS - 1) / SEGMENT_ROWS;
    long first = (segments.isEmpty() ? 0 : segments.firstKey()) - chunks;
    for (int c = 0; c < chunks; c++) {
      try (FrameFile f = FrameFile.create(path(first + c))) {
        Segment s = new Segment(f.path());
        segments.put(first + c, s);
        write(f, s, oldest.subList(c * SEGMENT_ROWS, Math.min(oldest.size(), (c + 1) * SEGMENT_ROWS)));
      }
    }
    return bound();
  }

  /** The oldest segment's rows, or null when nothing waits. */
  @Override
  public synchronized Chunk head() {
    Map.Entry<Long, Segment> first = segments.firstEntry();
    if (first == null) {
      return null;
    }
    if (first.getKey().equals(segments.lastKey())) {
      closeTail(); // appends go to a new segment while this one is written
    }
    List<PartialRow> out = new ArrayList<>();
    boolean intact = FrameFile.read(first.getValue().path, frame -> {
      In in = new In(frame);
      while (in.hasMore()) {
        out.add(read(in));
      }
    });
    return new Chunk(first.getKey(), out, intact);
  }

  /** Storage has the chunk: its segment goes (unless the bound took it meanwhile). */
  @Override
  public synchronized void consumed(Chunk chunk) {
    if (segments.containsKey(chunk.segment())) { // head() closed it for appends
      remove(chunk.segment());
    }
  }

  @Override
  public boolean isEmpty() {
    return rows.get() == 0;
  }

  @Override
  public long rows() {
    return rows.get();
  }

  public long bytes() {
    return bytes.get();
  }

  /** How full the spool is, 0 to 1 (past 1 the oldest rows here go). */
  @Override
  public double fillRatio() {
    return (double) spoolBytes.getAsLong() / maxBytes;
  }

  private void write(FrameFile f, Segment s, List<PartialRow> list) {
    Out out = new Out(64 << 10);
    int inFrame = 0;
    for (PartialRow r : list) {
      write(out, r);
      inFrame++;
      if (out.size() > FRAME_BYTES) {
        append(f, s, out, inFrame);
        out = new Out(64 << 10);
        inFrame = 0;
      }
    }
    if (inFrame > 0) {
      append(f, s, out, inFrame);
    }
  }

  private void append(FrameFile f, Segment s, Out out, int count) {
    long before = f.bytes();
    f.append(out);
    long added = f.bytes() - before;
    s.bytes += added;
    s.rows += count;
    bytes.addAndGet(added);
    rows.addAndGet(count);
  }

  /** Past the spool's bound the oldest segments go, never the newest; returns their rows. */
  private long bound() {
    long dropped = 0;
    while (spoolBytes.getAsLong() > maxBytes && segments.size() > 1) {
      long oldest = segments.firstKey();
      dropped += segments.get(oldest).rows;
      remove(oldest);
    }
    return dropped;
  }

  private void remove(long n) {
    Segment s = segments.remove(n);
    bytes.addAndGet(-s.bytes);
    rows.addAndGet(-s.rows);
    try {
      Files.deleteIfExists(s.path);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete spool file " + s.path, e);
    }
  }

  private void closeTail() {
    if (tail != null) {
      tail.close();
      tail = null;
    }
  }

  /** Closes the file appended to; what is on disk stays (the run's directory keeps or loses it whole). */
  synchronized void close() {
    closeTail();
  }

  private Path path(long n) {
    // Offset so that segments put in front (negative numbers) still sort by name.
    return dir.resolve("rows-" + String.format("%019d", n + (1L << 62)) + ".log");
  }

  static void write(Out o, PartialRow r) {
    o.str(r.group());
    o.str(r.entityId());
    o.u8(r.step().ordinal() | (r.closed() ? CLOSED : 0)); // segments of older builds have the bit clear
    o.i64(r.bucket());
    o.str(r.writerId());
    o.i64(r.sequence());
    o.varint(r.cells().size());
    for (PartialRow.Cell c : r.cells()) {
      o.str(c.metric());
      o.varint(c.values().length);
      for (long v : c.values()) {
        o.zigzag(v);
      }
      o.bytes(c.sketch());
    }
  }

  static PartialRow read(In in) {
    String group = in.str();
    String entityId = in.str();
    int stepAndClosed = in.u8();
    Step step = STEPS[stepAndClosed & ~CLOSED];
    long bucket = in.i64();
    String writerId = in.str();
    long sequence = in.i64();
    int cellCount = Math.toIntExact(in.varint());
    List<PartialRow.Cell> cells = new ArrayList<>(cellCount);
    for (int i = 0; i < cellCount; i++) {
      String metric = in.str();
      long[] values = new long[Math.toIntExact(in.varint())];
      for (int v = 0; v < values.length; v++) {
        values[v] = in.zigzag();
      }
      cells.add(new PartialRow.Cell(metric, values, in.bytes()));
    }
    return new PartialRow(group, entityId, step, bucket, writerId, sequence, cells, (stepAndClosed & CLOSED) != 0,
        List.of());
  }
}
