package io.sextant.core.aggregate;

import io.sextant.api.model.Observation;

/**
 * What the hot path asks of durability: every accepted observation is appended to its thread's
 * batch, and the batch is kept before it returns; a collection is a cut that starts the next
 * epoch, so the snapshots it takes hold exactly the observations of the epochs before. The
 * aggregator owns the lock that makes this true (batches hold it shared, a cut exclusively) and
 * never knows what is kept: {@link #NONE} keeps nothing; the spool ({@code core.spool}) keeps it
 * on disk.
 */
public interface Journal {
  /** Whether batches are kept now: then a collection is a cut. */
  boolean on();

  /** The calling thread's batch. */
  Batch batch();

  /**
   * Starts the next epoch, under the aggregator's exclusive cut lock. Never throws: a journal that
   * cannot go on turns itself off, and its cut log reports why.
   */
  void cut();

  /** How long a cut held new batches: waiting for running ones, then copying accumulators. */
  void cutTook(long nanos);

  /** One thread's batch of accepted observations. Not thread-safe: each thread has its own. */
  interface Batch {
    /** Whether a batch is open on this thread: an offer outside one opens one of its own. */
    boolean open();

    /** Opens the batch, under the aggregator's shared cut lock: it belongs to the current epoch. */
    void begin();

    /** The observation being taken opened an accumulator (then its instance properties are kept). */
    void opened();

    /** Appends an accepted observation. */
    void append(Observation accepted);

    /** Closes the batch, still under the shared lock: kept (or its failure counted) on return. */
    void end();
  }

  /** Keeps nothing: its batch is always open, so the aggregator never takes the cut lock. */
  Journal NONE = new Journal() {
    private final Batch none = new Batch() {
      @Override
      public boolean open() {
        return true;
      }

      @Override
      public void begin() {}

      @Override
      public void opened() {}

      @Override
      public void append(Observation accepted) {}

      @Override
      public void end() {}
    };

    @Override
    public boolean on() {
      return false;
    }

    @Override
    public Batch batch() {
      return none;
    }

    @Override
    public void cut() {}

    @Override
    public void cutTook(long nanos) {}
  };
}
