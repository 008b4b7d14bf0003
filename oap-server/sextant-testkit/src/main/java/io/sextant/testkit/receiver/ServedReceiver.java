package io.sextant.testkit.receiver;

import com.linecorp.armeria.common.grpc.GrpcSerializationFormats;
import com.linecorp.armeria.server.Server;
import com.linecorp.armeria.server.grpc.GrpcService;
import com.linecorp.armeria.server.grpc.GrpcServiceBuilder;
import io.grpc.ServerServiceDefinition;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.plugin.ReceiverContext;
import io.sextant.api.plugin.ReceiverFactory;
import io.sextant.api.receiver.Receiver;
import io.sextant.api.receiver.RecordWriter;
import io.sextant.testkit.config.KeySettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One receiver made by its factory and served on a real socket (Armeria, an ephemeral port), with
 * core's ports replaced by a {@link RecordingSink} and {@link InMemoryAgentPorts}: a receiver module
 * tests itself with its own protocol's clients, without a server or storage.
 */
public final class ServedReceiver implements AutoCloseable {
  private static final List<CompletableFuture<?>> STOPPING = new CopyOnWriteArrayList<>();

  public final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  public final RecordingSink sink = new RecordingSink();
  public final InMemoryAgentPorts agents = new InMemoryAgentPorts();
  public final Receiver receiver;
  private final Server server;

  /** Serves the receiver {@code factory} makes with its defaults overridden by {@code settings}. */
  public ServedReceiver(ReceiverFactory factory, Map<String, String> settings) {
    receiver = factory.create(new ReceiverContext(KeySettings.of(factory.keys(), settings), sink, RecordWriter.NONE,
        registry, agents, agents));
    receiver.start();
    GrpcServiceBuilder grpc = GrpcService.builder().supportedSerializationFormats(GrpcSerializationFormats.PROTO);
    for (ServerServiceDefinition service : receiver.services()) {
      grpc.addService(service);
    }
    server = Server.builder().http(0).service(grpc.build())
        .gracefulShutdownTimeout(Duration.ZERO, Duration.ZERO) // nothing is in flight after a test
        .build();
    server.start().join();
  }

  /** The address to build a client for. */
  public String uri() {
    return "http://127.0.0.1:" + server.activeLocalPort();
  }

  /** Stops serving; the port's quiet period passes in the background (see {@link #awaitAllStopped}). */
  @Override
  public void close() {
    STOPPING.add(server.stop());
    receiver.close();
  }

  /** Waits for every server closed so far to have let its port go (after all tests of a class). */
  public static void awaitAllStopped() {
    CompletableFuture.allOf(STOPPING.toArray(new CompletableFuture<?>[0])).join();
    STOPPING.clear();
  }
}
