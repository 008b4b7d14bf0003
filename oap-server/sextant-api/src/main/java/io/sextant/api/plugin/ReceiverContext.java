package io.sextant.api.plugin;

import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.config.Settings;
import io.sextant.api.receiver.ProcessRegistry;
import io.sextant.api.receiver.ProfilingTasks;
import io.sextant.api.receiver.RecordSink;
import io.sextant.api.receiver.RecordWriter;
import java.lang.reflect.Proxy;

/**
 * What a receiver is given, all of it core's ports: its settings, the sink it pushes records to
 * aggregate into, the writer for records kept as they are (events, profiling data), the meter
 * registry for its self-metrics, and for agents that register entities and poll for work
 * (SkyWalking Rover) the process registry and the profiling tasks. A receiver never sees storage.
 * Receivers call the ports that reach storage off the network threads; they throw when storage is
 * unavailable and the receiver answers the agent {@code UNAVAILABLE}.
 */
public record ReceiverContext(Settings settings, RecordSink sink, RecordWriter records, MeterRegistry meters,
    ProcessRegistry processes, ProfilingTasks tasks) {

  /** A context without record storage or agent ports: their calls refuse. For receivers that only aggregate. */
  public ReceiverContext(Settings settings, RecordSink sink, MeterRegistry meters) {
    this(settings, sink, RecordWriter.NONE, meters);
  }

  /** A context with record storage but no process registry or profiling tasks (their calls refuse). */
  public ReceiverContext(Settings settings, RecordSink sink, RecordWriter records, MeterRegistry meters) {
    this(settings, sink, records, meters, refusing(ProcessRegistry.class), refusing(ProfilingTasks.class));
  }

  private static <T> T refusing(Class<T> port) {
    return port.cast(Proxy.newProxyInstance(port.getClassLoader(), new Class<?>[] {port}, (proxy, method, args) -> {
      if (method.getDeclaringClass() == Object.class) {
        return switch (method.getName()) {
          case "toString" -> "no " + port.getSimpleName() + " in this context";
          case "hashCode" -> System.identityHashCode(proxy);
          default -> proxy == args[0];
        };
      }
      throw new IllegalStateException("no " + port.getSimpleName() + " in this context");
    }));
  }
}
