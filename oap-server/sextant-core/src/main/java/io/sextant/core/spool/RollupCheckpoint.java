package io.sextant.core.spool;

import io.sextant.core.aggregate.EntityRef;
import io.sextant.core.flush.RollupEntry;
import io.sextant.core.metric.EncodedState;
import io.sextant.core.metric.MetricGroup;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/** The byte format of the roll-ups in a cut's checkpoint: frames of {@link RollupEntry}s. */
final class RollupCheckpoint {
  /** Largest frame, about. */
  private static final int FRAME_BYTES = 4 << 20;

  private RollupCheckpoint() {}

  /**
   * Writes every entry: frames starting with {@code tag}, each holding entries up to its end,
   * handed to {@code frames} (which may reuse nothing: each is new).
   */
  static void save(int tag, List<RollupEntry> entries, Consumer<Out> frames) {
    Out out = null;
    for (RollupEntry e : entries) {
      if (out == null) {
        out = new Out(64 << 10);
        out.u8(tag);
      }
      SnapshotCodec.group(out, e.group());
      SnapshotCodec.entity(out, e.entity());
      out.i64(e.bucket());
      out.i64(e.sequence());
      out.bool(e.closed() != null);
      if (e.closed() != null) {
        SnapshotCodec.states(out, e.closed());
      }
      out.i32(e.open().size());
      for (Map.Entry<Long, EncodedState[]> m : e.open().entrySet()) {
        out.i64(m.getKey());
        SnapshotCodec.states(out, m.getValue());
      }
      out.bool(e.dirty());
      if (out.size() > FRAME_BYTES) {
        frames.accept(out);
        out = null;
      }
    }
    if (out != null) {
      frames.accept(out);
    }
  }

  /** Reads back the entries of a frame {@link #save} wrote (after its tag). */
  static void restore(In in, SnapshotCodec codec, Consumer<RollupEntry> entries) {
    while (in.hasMore()) {
      MetricGroup group = codec.group(in);
      EntityRef entity = SnapshotCodec.entity(in);
      long bucket = in.i64();
      long sequence = in.i64();
      EncodedState[] closed = in.bool() ? SnapshotCodec.states(in, group) : null;
      int n = in.i32();
      Map<Long, EncodedState[]> open = new HashMap<>();
      for (int i = 0; i < n; i++) {
        open.put(in.i64(), SnapshotCodec.states(in, group));
      }
      entries.accept(new RollupEntry(group, entity, bucket, sequence, closed, open, in.bool()));
    }
  }
}
