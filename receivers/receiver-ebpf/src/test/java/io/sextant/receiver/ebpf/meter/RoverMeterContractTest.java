package io.sextant.receiver.ebpf.meter;

import static org.assertj.core.api.Assertions.assertThat;

import com.linecorp.armeria.client.grpc.GrpcClients;
import io.grpc.Status;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.ProcessSampleRecord;
import io.sextant.api.model.Scope;
import io.sextant.api.plugin.ReceiverFactory;
import io.sextant.receiver.ebpf.EbpfReceiverFactory;
import io.sextant.testkit.receiver.ReceiverContractTest;
import java.util.List;
import org.apache.skywalking.apm.network.language.agent.v3.Label;
import org.apache.skywalking.apm.network.language.agent.v3.MeterData;
import org.apache.skywalking.apm.network.language.agent.v3.MeterDataCollection;
import org.apache.skywalking.apm.network.language.agent.v3.MeterReportServiceGrpc;
import org.apache.skywalking.apm.network.language.agent.v3.MeterSingleValue;
import org.junit.jupiter.api.Test;

/** Rover's meters on {@code MeterReportService.collectBatch}, under the receiver contract. */
class RoverMeterContractTest extends ReceiverContractTest<MeterDataCollection> {
  private static final long NOW = System.currentTimeMillis();

  @Override
  protected ReceiverFactory factory() {
    return new EbpfReceiverFactory();
  }

  @Override
  protected Status send(String uri, List<MeterDataCollection> messages) throws Exception {
    MeterReportServiceGrpc.MeterReportServiceStub stub =
        GrpcClients.builder(uri).build(MeterReportServiceGrpc.MeterReportServiceStub.class);
    return clientStream(stub::collectBatch, messages);
  }

  @Override
  protected Batch<MeterDataCollection> goodBatch() {
    return Batch.good(List.of(collection(
        meter("rover_net_p_client_write_counts_counter", 3, "client"),
        meter("rover_net_p_client_write_bytes_counter", 300, "client"))), 2);
  }

  @Override
  protected Batch<MeterDataCollection> batchWithOneBadRecord() {
    return Batch.withOneBad(List.of(collection(
        meter("rover_net_p_client_write_counts_counter", 3, "client"),
        meter("rover_net_p_client_read_counts_counter", 3, ""),
        meter("rover_net_p_server_read_counts_counter", 3, "server"))), 2, "missing_label");
  }

  @Test
  void aSampleBecomesTheRecordOfItsRule() throws Exception {
    Status status = send(uri(), List.of(collection(meter("rover_net_p_client_write_counts_counter", 2.4, "client"),
        meter("rover_net_p_no_such_meter", 1, "client"))));
    assertThat(status.getCode()).isEqualTo(Status.Code.OK);
    assertThat(sink.accepted()).singleElement().isEqualTo(new ProcessSampleRecord(NOW, Scope.PROCESS_RELATION,
        "reviews", "pod-1", io.sextant.api.model.Layer.UNDEFINED, DetectPoint.CLIENT, "p1", "p2", "https",
        "process_relation_client_write_cpm", "", 0, 2));
    assertThat(rejected(RoverMeterEngine.UNMAPPED)).isEqualTo(1.0);
  }

  static MeterDataCollection collection(MeterData.Builder... meters) {
    meters[0].setService("reviews").setServiceInstance("pod-1").setTimestamp(NOW);
    MeterDataCollection.Builder c = MeterDataCollection.newBuilder();
    for (MeterData.Builder m : meters) {
      c.addMeterData(m);
    }
    return c.build();
  }

  static MeterData.Builder meter(String name, double value, String side) {
    MeterSingleValue.Builder v = MeterSingleValue.newBuilder().setName(name).setValue(value)
        .addLabels(label("client_process_id", "p1")).addLabels(label("server_process_id", "p2"))
        .addLabels(label("protocol", "http")).addLabels(label("is_ssl", "true"));
    if (!side.isEmpty()) {
      v.addLabels(label("side", side));
    }
    return MeterData.newBuilder().setSingleValue(v);
  }

  static Label label(String name, String value) {
    return Label.newBuilder().setName(name).setValue(value).build();
  }
}
