package io.sextant.receiver.ebpf;

import io.grpc.ServerServiceDefinition;
import io.sextant.api.plugin.ReceiverContext;
import io.sextant.api.receiver.Receiver;
import io.sextant.receiver.common.ReceiverMetrics;
import java.util.ArrayList;
import java.util.List;

/**
 * SkyWalking Rover's services on the gRPC port, so an unchanged Rover ({@code ROVER_BACKEND_ADDR})
 * reports here. Self-metrics are the common receiver counters ({@code receiver=ebpf}), rejections
 * by reason.
 */
public final class EbpfReceiver implements Receiver {
  static final String NAME = "ebpf";

  private final ReceiverContext context;
  private final EbpfReceiverConfig config;
  private final ReceiverMetrics metrics;
  private final BlockingCalls calls;

  EbpfReceiver(ReceiverContext context, EbpfReceiverConfig config) {
    this.context = context;
    this.config = config;
    this.metrics = ReceiverMetrics.forReceiver(NAME, context.meters());
    this.calls = new BlockingCalls(config.callThreads(), config.maxQueuedCalls(), metrics);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<ServerServiceDefinition> services() {
    List<ServerServiceDefinition> services = new ArrayList<>();
    services.add(new ProfilingService(context, ProfilingConfig.load(context.settings()), metrics, calls).bindService());
    return services;
  }

  @Override
  public void start() {}

  @Override
  public void close() {
    calls.close();
  }
}
