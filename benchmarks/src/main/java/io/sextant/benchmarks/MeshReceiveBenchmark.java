package io.sextant.benchmarks;

import io.grpc.Attributes;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerMethodDefinition;
import io.grpc.Status;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import io.sextant.api.plugin.ReceiverContext;
import io.sextant.api.plugin.ReceiverFactory;
import io.sextant.api.receiver.Receiver;
import io.sextant.core.aggregate.Aggregator;
import io.sextant.receiver.mesh.MeshReceiverFactory;
import java.io.ByteArrayInputStream;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetrics;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The server's work per mesh telemetry message without the network: the message's bytes, as gRPC
 * hands them over, through the receiver's own request marshaller and stream (decode, validate) into
 * the aggregator. Messages are the load generator's, every entity already has its accumulator.
 * Uses only the receiver's public API, so the same benchmark measures an older receiver jar put on
 * the classpath instead (how the before/after figures in docs/performance-history.md were taken).
 *
 * <p>Scores are messages per second; {@code batch} records each (a few messages are shorter). On a
 * machine shared with other work, wall-clock scores follow the others' load; {@link #main} measures
 * this thread's CPU time per record instead: {@code java -cp <classes:classpath>
 * io.sextant.benchmarks.MeshReceiveBenchmark [shape] [batch] [rounds]}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class MeshReceiveBenchmark {
  @Param({"bookinfo", "200x5000"})
  public String shape;

  @Param({"1", "10"})
  public int batch;

  private byte[][] messages;
  private MethodDescriptor<Object, Object> method;
  private ServerCall.Listener<Object> stream;
  private int next;

  @Setup(Level.Trial)
  @SuppressWarnings("unchecked")
  public void setUp() {
    Aggregator aggregator = AggregatorBenchmark.newAggregator();
    ReceiverFactory factory = new MeshReceiverFactory();
    Receiver receiver = factory.create(new ReceiverContext(defaults(factory), aggregator, new SimpleMeterRegistry()));
    ServerMethodDefinition<Object, Object> collect =
        (ServerMethodDefinition<Object, Object>) receiver.services().get(0).getMethods().iterator().next();
    method = collect.getMethodDescriptor();
    stream = collect.getServerCallHandler().startCall(new OpenCall(method), new Metadata());

    CallSampler sampler = new CallSampler(CallRecords.topology(shape), 0.05, 0.02, 7);
    MessagePool<ServiceMeshMetrics> pool = MessagePool.build(sampler, 1 << 16, batch, System.currentTimeMillis());
    messages = new byte[pool.size()][];
    for (int i = 0; i < messages.length; i++) {
      messages[i] = pool.messages.get(i).toByteArray();
    }
    for (byte[] m : messages) {
      stream.onMessage(method.parseRequest(new ByteArrayInputStream(m)));
    }
    if (aggregator.openAccumulators() == 0) {
      throw new IllegalStateException("the receiver accepted nothing");
    }
  }

  @Benchmark
  public void receive() {
    byte[] m = messages[next];
    next = next + 1 == messages.length ? 0 : next + 1;
    stream.onMessage(method.parseRequest(new ByteArrayInputStream(m)));
  }

  /** CPU time of this thread per record, over rounds of a second or so each; prints each round and the median. */
  public static void main(String[] args) {
    MeshReceiveBenchmark b = new MeshReceiveBenchmark();
    b.shape = args.length > 0 ? args[0] : "200x5000";
    b.batch = args.length > 1 ? Integer.parseInt(args[1]) : 1;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 20;
    b.setUp();
    long records = 0;
    for (byte[] m : b.messages) {
      records += countRecords(m);
    }
    double recordsPerMessage = (double) records / b.messages.length;
    java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
    int perRound = 200_000 / b.batch;
    double[] nanos = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      long start = cpu.getCurrentThreadCpuTime();
      for (int i = 0; i < perRound; i++) {
        b.receive();
      }
      nanos[r] = (cpu.getCurrentThreadCpuTime() - start) / (perRound * recordsPerMessage);
      System.out.printf("round %2d: %.0f ns CPU per record%n", r + 1, nanos[r]);
    }
    double[] measured = java.util.Arrays.copyOfRange(nanos, rounds / 2, rounds); // second half: after warm-up
    java.util.Arrays.sort(measured);
    System.out.printf("%s batch %d (%.2f records/message): median %.0f ns, min %.0f ns CPU per record "
        + "over the last %d rounds%n", b.shape, b.batch, recordsPerMessage, measured[measured.length / 2],
        measured[0], measured.length);
  }

  private static int countRecords(byte[] message) {
    try {
      ServiceMeshMetrics m = ServiceMeshMetrics.parseFrom(message);
      return m.getHttpMetrics().getMetricsCount() + m.getTcpMetrics().getMetricsCount();
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Settings defaults(ReceiverFactory factory) {
    Map<String, Object> values = new HashMap<>();
    for (ConfigKey key : factory.keys()) {
      values.put(key.path(), key.defaultValue());
    }
    return new Settings() {
      @Override
      public int integer(String path) {
        return (Integer) values.get(path);
      }

      @Override
      public String string(String path) {
        return (String) values.get(path);
      }

      @Override
      public boolean bool(String path) {
        return (Boolean) values.get(path);
      }
    };
  }

  /** A call that stays open: the benchmark never ends the stream, and a refusal would be a bug. */
  private static final class OpenCall extends ServerCall<Object, Object> {
    private final MethodDescriptor<Object, Object> method;

    OpenCall(MethodDescriptor<Object, Object> method) {
      this.method = method;
    }

    @Override
    public void request(int numMessages) {}

    @Override
    public void sendHeaders(Metadata headers) {}

    @Override
    public void sendMessage(Object message) {}

    @Override
    public void close(Status status, Metadata trailers) {
      throw new IllegalStateException("the receiver ended the stream: " + status);
    }

    @Override
    public boolean isCancelled() {
      return false;
    }

    @Override
    public Attributes getAttributes() {
      return Attributes.EMPTY;
    }

    @Override
    public MethodDescriptor<Object, Object> getMethodDescriptor() {
      return method;
    }
  }
}
