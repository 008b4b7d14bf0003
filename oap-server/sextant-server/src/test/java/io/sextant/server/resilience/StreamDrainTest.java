package io.sextant.server.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import com.linecorp.armeria.client.grpc.GrpcClients;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.sextant.server.testing.Bookinfo;
import io.sextant.server.testing.TestServer;
import io.sextant.testkit.poll.Poll;
import io.sextant.testkit.receiver.ClientStreams;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetricServiceGrpc;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetrics;
import org.junit.jupiter.api.Test;

/**
 * Stopping a collector ends its open mesh streams at once with UNAVAILABLE, naming how many messages
 * of the stream it handled, instead of leaving them open for the shutdown grace period; everything it
 * handled was accepted.
 */
class StreamDrainTest {
  @Test
  void stopEndsOpenStreamsAtOnceWithUnavailableAndTheHandledCount() throws Exception {
    TestServer sextant = new TestServer(Map.of("server.shutdownGraceSeconds", "20"));
    long time = (System.currentTimeMillis() / 60_000 - 1) * 60_000 + 1000;
    List<ServiceMeshMetrics> messages = Bookinfo.standard(time).messages(5);
    CompletableFuture<Status> end = new CompletableFuture<>();
    StreamObserver<ServiceMeshMetrics> stream = GrpcClients.builder("http://127.0.0.1:" + sextant.grpcPort)
        .build(ServiceMeshMetricServiceGrpc.ServiceMeshMetricServiceStub.class)
        .collect(ClientStreams.endingIn(end));
    messages.forEach(stream::onNext);
    long records = (long) Bookinfo.standard(time).http.size() + Bookinfo.standard(time).tcp.size();
    assertThat(Poll.until("every record accepted", Duration.ofSeconds(10), () -> accepted(sextant),
        n -> n >= records)).isEqualTo((double) records);

    long stop = System.nanoTime();
    sextant.close();
    Status status = end.get(5, TimeUnit.SECONDS);
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stop)).as("not the 20 s grace").isLessThan(5_000);
    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(status.getDescription()).isEqualTo("collector is shutting down; reconnect to another collector ("
        + messages.size() + " messages of this stream were handled)");
  }

  private static double accepted(TestServer sextant) {
    return sextant.server.registry().counter("sextant_receiver_records_accepted", "receiver", "mesh").count();
  }
}
