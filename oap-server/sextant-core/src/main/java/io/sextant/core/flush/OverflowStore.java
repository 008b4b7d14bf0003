package io.sextant.core.flush;

import io.sextant.api.storage.PartialRow;
import java.util.List;

/**
 * Rows the write queue has no room for in memory while storage is away, oldest first, until
 * storage takes them ({@link CutLog#overflow}). Bounded: what a call cannot keep it drops and
 * returns the count of, for the queue to report.
 */
public interface OverflowStore {
  /** The oldest rows, handed out by {@link #head()}; {@link #consumed} once stored. */
  record Chunk(long segment, List<PartialRow> rows, boolean intact) {}

  /** Appends rows as the newest; returns how many rows the bound dropped to make room. */
  long append(List<PartialRow> newest);

  /** Puts rows in front of everything held (older versions than those held); returns rows dropped. */
  long prepend(List<PartialRow> oldest);

  /** The oldest rows held, or null when empty. */
  Chunk head();

  /** Storage has {@code chunk}: it leaves. */
  void consumed(Chunk chunk);

  boolean isEmpty();

  long rows();

  /** How full, 0 to 1. */
  double fillRatio();
}
