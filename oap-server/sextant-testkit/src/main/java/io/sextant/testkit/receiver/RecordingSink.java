package io.sextant.testkit.receiver;

import io.sextant.api.model.Observation;
import io.sextant.api.receiver.Admission;
import io.sextant.api.receiver.RecordSink;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link RecordSink} whose answer a test chooses: accept everything, accept the first few and
 * then be overloaded (or refuse new entities), or refuse everything as outside the time range. Keeps what it accepted.
 */
public final class RecordingSink implements RecordSink {
  private final List<Observation> accepted = new ArrayList<>();
  private int offers;
  private int acceptLimit = Integer.MAX_VALUE;
  private Admission afterLimit = Admission.REJECTED_OVERLOADED;

  /** Accepts {@code n} records, then answers {@link Admission#REJECTED_OVERLOADED}. */
  public synchronized RecordingSink overloadedAfter(int n) {
    acceptLimit = n;
    afterLimit = Admission.REJECTED_OVERLOADED;
    return this;
  }

  /** Accepts {@code n} records, then answers {@link Admission#REJECTED_NEW_ENTITIES}. */
  public synchronized RecordingSink refusingNewEntitiesAfter(int n) {
    acceptLimit = n;
    afterLimit = Admission.REJECTED_NEW_ENTITIES;
    return this;
  }

  /** Answers {@link Admission#REJECTED_TIME_RANGE} to every record. */
  public synchronized RecordingSink refusingTimeRange() {
    acceptLimit = 0;
    afterLimit = Admission.REJECTED_TIME_RANGE;
    return this;
  }

  public synchronized List<Observation> accepted() {
    return List.copyOf(accepted);
  }

  /** Records offered, whatever the answer. */
  public synchronized int offers() {
    return offers;
  }

  @Override
  public synchronized Admission offer(Observation record) {
    offers++;
    if (accepted.size() >= acceptLimit) {
      return afterLimit;
    }
    accepted.add(record);
    return Admission.ACCEPTED;
  }
}
