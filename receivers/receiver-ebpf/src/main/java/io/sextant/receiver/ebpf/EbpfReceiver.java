package io.sextant.receiver.ebpf;

import io.grpc.ServerServiceDefinition;
import io.sextant.api.plugin.ReceiverContext;
import io.sextant.api.receiver.Receiver;
import io.sextant.api.time.TimeBuckets;
import io.sextant.receiver.common.PeerAddressResolver;
import io.sextant.receiver.common.ReceiverMetrics;
import io.sextant.receiver.ebpf.accesslog.AccessLogConfig;
import io.sextant.receiver.ebpf.accesslog.AccessLogService;
import io.sextant.receiver.ebpf.continuous.ContinuousConfig;
import io.sextant.receiver.ebpf.continuous.ContinuousService;
import io.sextant.receiver.ebpf.meter.RoverMeterConfig;
import io.sextant.receiver.ebpf.meter.RoverMeterService;
import io.sextant.receiver.ebpf.process.ProcessService;
import io.sextant.receiver.ebpf.process.ProcessServiceConfig;
import io.sextant.receiver.ebpf.profiling.ProfilingConfig;
import io.sextant.receiver.ebpf.profiling.ProfilingService;
import io.sextant.receiver.ebpf.trace.SampledTraceConfig;
import io.sextant.receiver.ebpf.trace.SampledTraceService;
import java.time.Clock;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

/**
 * SkyWalking Rover's services on the gRPC port, so an unchanged Rover ({@code ROVER_BACKEND_ADDR})
 * reports here. Self-metrics are the common receiver counters ({@code receiver=ebpf}; the access
 * log's kernel records {@code receiver=ebpf_access_log}), rejections by reason.
 */
public final class EbpfReceiver implements Receiver {
  static final String NAME = "ebpf";
  /** The access log's receiver tag in the self-metrics. */
  static final String ACCESS_LOG = "ebpf_access_log";

  private final ReceiverContext context;
  private final EbpfReceiverConfig config;
  private final ReceiverMetrics metrics;
  private final BlockingCalls calls;
  /** Minute buckets in the server's time zone, as the rest of storage files them. */
  private final TimeBuckets buckets;
  private final RoverMeterService meters;
  private final boolean accessLog;
  /** Pod-IP resolution for the access log's peers; null unless configured. */
  private final PeerAddressResolver peers;

  EbpfReceiver(ReceiverContext context, EbpfReceiverConfig config) {
    this.context = context;
    this.config = config;
    this.metrics = ReceiverMetrics.forReceiver(NAME, context.meters());
    this.calls = new BlockingCalls(config.callThreads(), config.maxQueuedCalls(), metrics);
    RoverMeterConfig meterConfig = RoverMeterConfig.load(context.settings());
    this.buckets = new TimeBuckets(serverZone(context), Clock.systemUTC());
    this.meters = new RoverMeterService(context.sink(), metrics, config.maxStringLength(), meterConfig,
        context.processes(), buckets);
    this.accessLog = AccessLogConfig.enabled(context.settings());
    this.peers = accessLog ? AccessLogService.resolver(context.settings(), context.meters()) : null;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<ServerServiceDefinition> services() {
    List<ServerServiceDefinition> services = new ArrayList<>();
    services.add(new SampledTraceService(context.records(), calls, metrics, config.maxStringLength(),
        SampledTraceConfig.load(context.settings())).bindService());
    services.add(new ContinuousService(context.tasks(), calls, metrics, config.maxStringLength(),
        ContinuousConfig.load(context.settings()), System::currentTimeMillis, System::nanoTime).bindService());
    services.addAll(meters.services());
    services.add(new ProfilingService(context, ProfilingConfig.load(context.settings()), metrics, calls).bindService());
    services.add(new ProcessService(context.processes(), calls, metrics, config.maxStringLength(),
        ProcessServiceConfig.load(context.settings()), buckets).bindService());
    if (accessLog) {
      // Its own receiver tag: kernel records are counted apart from Rover's meters and profiles.
      services.add(AccessLogService.fromSettings(context.settings(), context.sink(),
          ReceiverMetrics.forReceiver(ACCESS_LOG, context.meters()), peers, config.maxStringLength()).service());
    }
    return services;
  }

  @Override
  public void start() {
    if (peers != null) {
      peers.start();
    }
  }

  @Override
  public void close() {
    calls.close();
    if (peers != null) {
      peers.close();
    }
  }

  /**
   * The server's time zone ({@code core.timezone}), in which process seen-times are minute buckets;
   * the system zone where the settings lack it (a receiver test's own settings).
   */
  private static ZoneId serverZone(ReceiverContext context) {
    try {
      return ZoneId.of(context.settings().string("core.timezone"));
    } catch (RuntimeException e) {
      return ZoneId.systemDefault();
    }
  }
}
