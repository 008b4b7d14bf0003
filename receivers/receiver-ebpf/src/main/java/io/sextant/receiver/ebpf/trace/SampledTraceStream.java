package io.sextant.receiver.ebpf.trace;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.sextant.api.receiver.RecordWriter;
import io.sextant.api.storage.StoredRecord;
import io.sextant.receiver.common.ReceiverMetrics;
import io.sextant.receiver.common.Rejections;
import io.sextant.receiver.ebpf.BlockingCalls;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.apache.skywalking.apm.network.common.v3.Commands;
import org.apache.skywalking.apm.network.logging.v3.LogData;

/**
 * The server side of one {@code LogReportService/collect} stream. Rover sends one stream per service
 * and flush and only reads the answer to log it, so samples are gathered as they come and written
 * in one batch when the stream ends, off the network threads; the answer says what became of them:
 * <ul>
 *   <li>OK (empty {@code Commands}) when every log was a sampled trace and all were stored;
 *   <li>{@code INVALID_ARGUMENT} "rejected N of M sampled traces; first: reason: detail" when some
 *       were malformed (the others are stored);
 *   <li>{@code UNIMPLEMENTED} when some logs were not Rover's sampled traces: they are outside
 *       Sextant's scope and ignored (the sampled traces of the same stream are stored). Not a code
 *       SkyWalking's agents treat as a broken connection, so a misdirected log reporter only logs it;
 *   <li>{@code UNAVAILABLE} when storage failed, {@code RESOURCE_EXHAUSTED} when too many Rover calls
 *       wait for a thread.
 * </ul>
 * gRPC calls {@code on*} one at a time; the write runs after {@code onCompleted}, so nothing here is
 * shared between threads at once.
 */
final class SampledTraceStream implements StreamObserver<LogData> {
  static final String METHOD = "LogReportService/collect";
  static final String OUT_OF_SCOPE = "logs other than SkyWalking Rover's network-profiling sampled traces "
      + "(tag " + SampledTraceParser.LOG_KIND + "=" + SampledTraceParser.SAMPLED_TRACE
      + ") are outside Sextant's scope (a service-mesh backend)";

  private final SampledTraceParser parser;
  private final RecordWriter records;
  private final BlockingCalls calls;
  private final ReceiverMetrics metrics;
  private final Clock clock;
  private final int maxSamples;
  private final StreamObserver<Commands> response;
  private final List<StoredRecord> samples = new ArrayList<>();
  private long received;
  private long ignored;
  private final Rejections rejections;
  private boolean done;

  SampledTraceStream(SampledTraceParser parser, RecordWriter records, BlockingCalls calls, ReceiverMetrics metrics,
      Clock clock, int maxSamples, StreamObserver<Commands> response) {
    this.parser = parser;
    this.records = records;
    this.calls = calls;
    this.metrics = metrics;
    this.rejections = new Rejections(metrics);
    this.clock = clock;
    this.maxSamples = maxSamples;
    this.response = response;
  }

  @Override
  public void onNext(LogData log) {
    if (done) {
      return;
    }
    metrics.message();
    received++;
    SampledTraceParser.Outcome outcome = parser.parse(log, clock.millis());
    if (outcome instanceof SampledTraceParser.Outcome.Sample s) {
      if (samples.size() >= maxSamples) {
        reject("too_many_sampled_traces", "a stream carries at most " + maxSamples + " sampled traces");
      } else {
        samples.add(s.trace().toRecord());
      }
    } else if (outcome instanceof SampledTraceParser.Outcome.Refused r) {
      reject(r.reason(), r.detail());
    } else {
      ignored++;
      metrics.rejected("not_sampled_trace", 1);
    }
  }

  private void reject(String reason, String detail) {
    rejections.add(reason, detail, 1);
  }

  @Override
  public void onError(Throwable t) {
    // The client went away: nobody reads an answer, and a half-sent flush is not kept.
    done = true;
  }

  @Override
  public void onCompleted() {
    if (done) {
      return;
    }
    done = true;
    if (samples.isEmpty()) {
      answer();
      return;
    }
    calls.answer(METHOD, response, this::storeAndAnswer);
  }

  private Commands storeAndAnswer() {
    try {
      records.write(samples);
    } catch (RuntimeException e) {
      metrics.rejected("storage_unavailable", samples.size());
      throw Status.UNAVAILABLE.withDescription("storing " + samples.size() + " sampled traces failed ("
          + e.getMessage() + "); none of this stream were stored").asRuntimeException();
    }
    metrics.accepted(samples.size());
    return outcome();
  }

  private void answer() {
    try {
      response.onNext(outcome());
      response.onCompleted();
    } catch (StatusRuntimeException e) {
      response.onError(e);
    }
  }

  /** The answer once the samples are stored: OK, or a status naming what was not kept. */
  private Commands outcome() {
    String stored = samples.size() + " sampled traces of this stream were stored";
    if (rejections.count() > 0) {
      throw Status.INVALID_ARGUMENT.withDescription(rejections.summary(received - ignored, "sampled traces") + "; "
          + stored + ignoredNote()).asRuntimeException();
    }
    if (ignored > 0) {
      throw Status.UNIMPLEMENTED.withDescription(ignored + " of " + received + " logs ignored: " + OUT_OF_SCOPE
          + "; " + stored).asRuntimeException();
    }
    return Commands.getDefaultInstance();
  }

  private String ignoredNote() {
    return ignored == 0 ? "" : "; " + ignored + " other logs ignored: " + OUT_OF_SCOPE;
  }
}
