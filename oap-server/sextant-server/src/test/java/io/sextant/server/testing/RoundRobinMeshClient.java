package io.sextant.server.testing;

import com.linecorp.armeria.client.grpc.GrpcClients;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.sextant.testkit.receiver.ClientStreams;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.skywalking.apm.network.common.v3.DetectPoint;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetric;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetrics;
import org.apache.skywalking.apm.network.servicemesh.v3.Protocol;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetricServiceGrpc;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetrics;

/**
 * Sidecar-like mesh traffic over a changing list of collector addresses (as a headless Service's
 * DNS answers): each sidecar keeps one {@code collect} stream at a time, ends it after {@code
 * streamMillis} (or when the server ends it) and opens the next one on the next address
 * of the list. Each message carries {@code recordsPerMessage} server-side HTTP calls to one of {@link
 * #SERVICES}, timed now, so the services' {@code service_cpm} sum over the minutes is the number of
 * records the collectors accepted.
 *
 * <p>What the protocol lets a client know is kept per stream ({@link StreamResult}): records sent, and
 * whether the stream ended OK (the collector acknowledged all of them) or failed (all of them were in
 * flight); when the collector ended it with the drain's UNAVAILABLE, the status names how many
 * messages it handled, so that stream's loss is known exactly.
 */
public final class RoundRobinMeshClient implements AutoCloseable {
  public static final List<String> SERVICES = List.of("svc-a", "svc-b", "svc-c", "svc-d");
  private static final Pattern HANDLED = Pattern.compile("\\(([0-9]+) messages of this stream were handled\\)");

  /** One stream: its address, when it ran, what was sent on it and how it ended. */
  public record StreamResult(String address, long startNanos, long endNanos, long records, long messages, Status status,
      long handledMessages) {
    public boolean ok() {
      return status.isOk();
    }

    /** The collector said how many messages of this failed stream it handled (the drain's status). */
    public boolean handledKnown() {
      return handledMessages >= 0;
    }
  }

  private final Supplier<List<String>> addresses;
  private final long streamMillis;
  private final int recordsPerMessage;
  private final long messageIntervalMillis;
  private final List<Thread> sidecars = new ArrayList<>();
  private final ConcurrentLinkedQueue<StreamResult> results = new ConcurrentLinkedQueue<>();
  private volatile boolean running = true;

  public RoundRobinMeshClient(Supplier<List<String>> addresses, int sidecars, long streamMillis, int recordsPerMessage,
      long messageIntervalMillis) {
    this.addresses = addresses;
    this.streamMillis = streamMillis;
    this.recordsPerMessage = recordsPerMessage;
    this.messageIntervalMillis = messageIntervalMillis;
    for (int i = 0; i < sidecars; i++) {
      int first = i;
      Thread t = new Thread(() -> run(first), "sidecar-" + i);
      t.setDaemon(true);
      this.sidecars.add(t);
    }
  }

  public RoundRobinMeshClient start() {
    sidecars.forEach(Thread::start);
    return this;
  }

  private void run(int next) {
    long sequence = 0;
    while (running) {
      List<String> list = addresses.get();
      String address = list.get(Math.floorMod(next++, list.size()));
      CompletableFuture<Status> end = new CompletableFuture<>();
      long start = System.nanoTime();
      StreamObserver<ServiceMeshMetrics> stream = GrpcClients.builder("http://" + address)
          .build(ServiceMeshMetricServiceGrpc.ServiceMeshMetricServiceStub.class)
          .collect(ClientStreams.endingIn(end));
      long messages = 0;
      long until = start + TimeUnit.MILLISECONDS.toNanos(streamMillis);
      while (running && System.nanoTime() < until && !end.isDone()) {
        stream.onNext(message(sequence++));
        messages++;
        sleep(messageIntervalMillis);
      }
      if (!end.isDone()) {
        stream.onCompleted();
      }
      Status status;
      try {
        status = end.get(60, TimeUnit.SECONDS);
      } catch (ExecutionException | TimeoutException e) {
        status = Status.DEADLINE_EXCEEDED.withDescription("no end in 60 s");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      results.add(new StreamResult(address, start, System.nanoTime(), messages * recordsPerMessage, messages,
          status, handled(status)));
    }
  }

  private static long handled(Status status) {
    if (status.isOk() || status.getDescription() == null) {
      return -1;
    }
    Matcher m = HANDLED.matcher(status.getDescription());
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  private ServiceMeshMetrics message(long sequence) {
    long now = System.currentTimeMillis();
    String service = SERVICES.get((int) (sequence % SERVICES.size()));
    HTTPServiceMeshMetrics.Builder calls = HTTPServiceMeshMetrics.newBuilder();
    for (int i = 0; i < recordsPerMessage; i++) {
      calls.addMetrics(HTTPServiceMeshMetric.newBuilder()
          .setStartTime(now - 5).setEndTime(now)
          .setSourceServiceName("gateway").setSourceServiceInstance("gateway-0")
          .setDestServiceName(service).setDestServiceInstance(service + "-0")
          .setEndpoint("GET:/" + i).setLatency(5).setResponseCode(200).setStatus(true)
          .setProtocol(Protocol.HTTP).setDetectPoint(DetectPoint.server).setTlsMode("mTLS"));
    }
    return ServiceMeshMetrics.newBuilder().setHttpMetrics(calls).build();
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis); // paces a sidecar's messages: the traffic's rate is the point
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Lets each sidecar end its stream (OK if the collector is there) and waits for all of them. */
  public List<StreamResult> stop() throws InterruptedException {
    running = false;
    for (Thread t : sidecars) {
      t.join(TimeUnit.SECONDS.toMillis(90));
    }
    return List.copyOf(results);
  }

  public List<StreamResult> resultsSoFar() {
    return List.copyOf(results);
  }

  @Override
  public void close() {
    try {
      stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The totals a user relies on, over a run's stream results. */
  public record Totals(long sent, long acknowledged, long inFlightOnFailed, long failedStreams, long knownLoss,
      long unknownInFlight, long drainedStreams, long maxDrainLoss) {
    public static Totals of(List<StreamResult> results, int recordsPerMessage) {
      long sent = 0;
      long acknowledged = 0;
      long inFlight = 0;
      long failed = 0;
      long knownLoss = 0;
      long unknown = 0;
      long drained = 0;
      long maxDrainLoss = 0;
      for (StreamResult r : results) {
        sent += r.records();
        if (r.ok()) {
          acknowledged += r.records();
          continue;
        }
        failed++;
        inFlight += r.records();
        if (r.handledKnown()) {
          long loss = (r.messages() - r.handledMessages()) * recordsPerMessage;
          knownLoss += loss;
          drained++;
          maxDrainLoss = Math.max(maxDrainLoss, loss);
        } else {
          unknown += r.records();
        }
      }
      return new Totals(sent, acknowledged, inFlight, failed, knownLoss, unknown, drained, maxDrainLoss);
    }
  }
}
