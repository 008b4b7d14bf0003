package io.sextant.receiver.ebpf.meter;

import io.grpc.ServerServiceDefinition;
import io.grpc.stub.StreamObserver;
import io.sextant.api.model.ProcessSampleRecord;
import io.sextant.api.receiver.ProcessRegistry;
import io.sextant.api.receiver.RecordSink;
import io.sextant.api.time.TimeBuckets;
import io.sextant.receiver.common.ReceiverMetrics;
import io.sextant.receiver.common.RecordStream;
import java.util.List;
import org.apache.skywalking.apm.network.common.v3.Commands;
import org.apache.skywalking.apm.network.language.agent.v3.MeterData;
import org.apache.skywalking.apm.network.language.agent.v3.MeterDataCollection;
import org.apache.skywalking.apm.network.language.agent.v3.MeterReportServiceGrpc;

/**
 * SkyWalking's meter protocol ({@code skywalking.v3.MeterReportService}, and the deprecated
 * package-less twin with {@code collect} only), for Rover's network-profiling ({@code rover_net_p_*})
 * and continuous-profiling ({@code rover_con_p_*}) meters. As SkyWalking: a {@code collect} stream is
 * one batch, evaluated when the client ends it; each {@code MeterDataCollection} of {@code
 * collectBatch} is one batch (Rover uses this one). Meters no rule maps are counted ({@code
 * unmapped_meter}) and ignored; samples missing a required label are refused, counted by reason, and
 * named in the stream's {@code INVALID_ARGUMENT} answer.
 */
public final class RoverMeterService {
  private static final Commands NO_COMMANDS = Commands.getDefaultInstance();

  private final RecordSink sink;
  private final ReceiverMetrics metrics;
  private final RoverMeterEngine engine;
  private final ProcessRegistry processes;
  private final RelationBounds relations;
  private final TimeBuckets buckets;
  private final int maxMetersPerBatch;

  public RoverMeterService(RecordSink sink, ReceiverMetrics metrics, int maxStringLength, RoverMeterConfig config,
      ProcessRegistry processes, TimeBuckets buckets) {
    this.sink = sink;
    this.metrics = metrics;
    this.engine = new RoverMeterEngine(maxStringLength);
    this.processes = processes;
    this.relations = new RelationBounds(config.maxRelationsPerProcess(), 100_000);
    this.buckets = buckets;
    this.maxMetersPerBatch = config.maxMetersPerBatch();
  }

  public List<ServerServiceDefinition> services() {
    return List.of(new MeterReportServiceGrpc.MeterReportServiceImplBase() {
      @Override
      public StreamObserver<MeterData> collect(StreamObserver<Commands> response) {
        return new CollectStream(response);
      }

      @Override
      public StreamObserver<MeterDataCollection> collectBatch(StreamObserver<Commands> response) {
        return new BatchStream(response);
      }
    }.bindService(), new org.apache.skywalking.apm.network.language.agent.v3.compat.MeterReportServiceGrpc
        .MeterReportServiceImplBase() {
      @Override
      public StreamObserver<MeterData> collect(StreamObserver<Commands> response) {
        return new CollectStream(response);
      }
    }.bindService());
  }

  /** {@code collect}: the stream's meters are one batch, evaluated at its end. */
  private final class CollectStream extends MeterStream<MeterData> {
    private final MeterBatch batch = new MeterBatch();

    CollectStream(StreamObserver<Commands> response) {
      super(response);
    }

    @Override
    protected void handle(MeterData data) {
      if (batch.size() >= maxMetersPerBatch) {
        reject("batch_too_large", "more than " + maxMetersPerBatch + " meters in one stream", 1);
        return;
      }
      batch.add(data);
    }

    @Override
    protected void completing() {
      evaluate(batch);
    }
  }

  /** {@code collectBatch}: each collection is one batch. */
  private final class BatchStream extends MeterStream<MeterDataCollection> {
    BatchStream(StreamObserver<Commands> response) {
      super(response);
    }

    @Override
    protected void handle(MeterDataCollection collection) {
      if (collection.getMeterDataCount() > maxMetersPerBatch) {
        reject("batch_too_large", "more than " + maxMetersPerBatch + " meters in one collection",
            collection.getMeterDataCount());
        return;
      }
      MeterBatch batch = new MeterBatch();
      collection.getMeterDataList().forEach(batch::add);
      evaluate(batch);
    }
  }

  /** The engine's output bound to one stream: records to the sink, problems to the stream's counts. */
  private abstract class MeterStream<M> extends RecordStream<M, Commands> implements RoverMeterEngine.Output {
    private long minute;

    MeterStream(StreamObserver<Commands> response) {
      super(sink, metrics, Completion.REPORT_REJECTIONS, response, NO_COMMANDS);
    }

    final void evaluate(MeterBatch batch) {
      minute = buckets.currentMinuteBucket();
      engine.evaluate(batch, buckets.nowMillis(), this);
    }

    @Override
    public boolean sample(ProcessSampleRecord sample) {
      return offer(sample);
    }

    @Override
    public void refuse(String reason, String detail, long count) {
      reject(reason, detail, count);
    }

    @Override
    public void unmapped(long count) {
      metrics.rejected(RoverMeterEngine.UNMAPPED, count);
    }

    @Override
    public void virtualProcess(String service, String instance, String name) {
      processes.virtual(service, instance, name);
    }

    @Override
    public boolean admitRelation(String localProcessId, String peer) {
      return relations.admit(minute, localProcessId, peer);
    }
  }
}
