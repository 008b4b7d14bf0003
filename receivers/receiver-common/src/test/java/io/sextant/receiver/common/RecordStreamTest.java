package io.sextant.receiver.common;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Layer;
import io.sextant.api.model.SampleRecord;
import io.sextant.testkit.receiver.RecordingSink;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The stream skeleton on its own: counting, rejections, the two endings and overload. */
class RecordStreamTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ReceiverMetrics metrics = ReceiverMetrics.forReceiver("test", registry);
  private final RecordingSink sink = new RecordingSink();
  private final Answer answer = new Answer();

  /** A message is a list of words: "ok" is a good record, anything else a bad one. */
  private final class Words extends RecordStream<List<String>, String> {
    Words(Completion completion) {
      super(sink, metrics, completion, answer, "done");
    }

    @Override
    protected long recordsIn(List<String> words) {
      return words.size();
    }

    @Override
    protected void handle(List<String> words) {
      for (String w : words) {
        if (!w.equals("ok")) {
          reject("not_ok", "'" + w + "' is not ok", 1);
        } else if (!offer(new SampleRecord(sink.offers(), "", "", "svc", "svc-0", DetectPoint.SERVER,
            Layer.MESH_DP, "m", "", 1))) {
          return;
        }
      }
    }
  }

  private static final class Answer implements StreamObserver<String> {
    final List<String> values = new ArrayList<>();
    Status error;
    boolean completed;

    @Override
    public void onNext(String value) {
      values.add(value);
    }

    @Override
    public void onError(Throwable t) {
      error = Status.fromThrowable(t);
    }

    @Override
    public void onCompleted() {
      completed = true;
    }
  }

  private double count(String name, String... tags) {
    var c = registry.find(name).tags(tags).counter();
    return c == null ? 0 : c.count();
  }

  @Test
  void rejectionsAreCountedAndNamedAtTheEnd() {
    Words stream = new Words(RecordStream.Completion.REPORT_REJECTIONS);
    stream.onNext(List.of("ok", "nope", "ok"));
    stream.onNext(List.of("ok", "bad"));
    stream.onCompleted();

    assertThat(answer.error.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(answer.error.getDescription()).isEqualTo("rejected 2 of 5 records; first: not_ok: 'nope' is not ok");
    assertThat(sink.accepted()).hasSize(3);
    assertThat(count(ReceiverMetrics.MESSAGES, "receiver", "test")).isEqualTo(2);
    assertThat(count(ReceiverMetrics.RECORDS_ACCEPTED, "receiver", "test")).isEqualTo(3);
    assertThat(count(ReceiverMetrics.RECORDS_REJECTED, "receiver", "test", "reason", "not_ok")).isEqualTo(2);
  }

  @Test
  void alwaysOkAnswersSuccessWhateverWasRejected() {
    Words stream = new Words(RecordStream.Completion.ALWAYS_OK);
    stream.onNext(List.of("ok", "nope"));
    stream.onCompleted();

    assertThat(answer.error).isNull();
    assertThat(answer.values).containsExactly("done");
    assertThat(answer.completed).isTrue();
    assertThat(count(ReceiverMetrics.RECORDS_REJECTED, "receiver", "test", "reason", "not_ok")).isEqualTo(1);
  }

  @Test
  void timeRangeRefusalsAreRejections() {
    sink.refusingTimeRange();
    Words stream = new Words(RecordStream.Completion.REPORT_REJECTIONS);
    stream.onNext(List.of("ok", "ok"));
    stream.onCompleted();

    assertThat(answer.error.getDescription())
        .isEqualTo("rejected 2 of 2 records; first: time_range: startTime is outside the accepted window");
    assertThat(count(ReceiverMetrics.RECORDS_REJECTED, "receiver", "test", "reason", "time_range")).isEqualTo(2);
  }

  @Test
  void overloadEndsTheStreamAtOnceAndIgnoresTheRest() {
    sink.overloadedAfter(1);
    Words stream = new Words(RecordStream.Completion.REPORT_REJECTIONS);
    stream.onNext(List.of("ok", "ok", "ok"));
    stream.onNext(List.of("ok"));
    stream.onCompleted();

    assertThat(answer.error.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(answer.error.getDescription())
        .isEqualTo("aggregation buffers are full; 1 records of this stream were accepted, retry the rest later");
    assertThat(answer.values).isEmpty();
    assertThat(sink.offers()).isEqualTo(2);
    assertThat(count(ReceiverMetrics.MESSAGES, "receiver", "test")).isEqualTo(1);
    assertThat(count(ReceiverMetrics.RECORDS_ACCEPTED, "receiver", "test")).isEqualTo(1);
    assertThat(count(ReceiverMetrics.RECORDS_REJECTED, "receiver", "test", "reason", "overloaded"))
        .as("the refused record, the one after it and the later message's").isEqualTo(3);
  }

  @Test
  void aRefusedMessageCountsEveryRecordItCostByCause() {
    sink.refusingNewEntitiesAfter(2);
    Words stream = new Words(RecordStream.Completion.REPORT_REJECTIONS);
    List<String> thousand = new ArrayList<>(Collections.nCopies(1_000, "ok"));
    thousand.set(1, "bad");
    stream.onNext(thousand);
    stream.onCompleted();

    assertThat(answer.error.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(answer.error.getDescription()).startsWith("too many new entities at once");
    assertThat(count(ReceiverMetrics.RECORDS_ACCEPTED, "receiver", "test")).isEqualTo(2);
    assertThat(count(ReceiverMetrics.RECORDS_REJECTED, "receiver", "test", "reason", "not_ok")).isEqualTo(1);
    assertThat(count(ReceiverMetrics.RECORDS_REJECTED, "receiver", "test", "reason", "new_entities"))
        .as("all but the two accepted and the bad one").isEqualTo(997);
    assertThat(count(ReceiverMetrics.RECORDS_REJECTED, "receiver", "test", "reason", "overloaded")).isZero();
  }
}
