package io.sextant.receiver.ebpf;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.plugin.ReceiverContext;
import io.sextant.api.plugin.ReceiverFactory;
import io.sextant.api.receiver.Receiver;
import io.sextant.receiver.ebpf.accesslog.AccessLogConfig;
import io.sextant.receiver.ebpf.continuous.ContinuousConfig;
import io.sextant.receiver.ebpf.meter.RoverMeterConfig;
import io.sextant.receiver.ebpf.process.ProcessServiceConfig;
import io.sextant.receiver.ebpf.profiling.ProfilingConfig;
import io.sextant.receiver.ebpf.trace.SampledTraceConfig;
import java.util.ArrayList;
import java.util.List;

/** Makes the SkyWalking Rover receiver ({@code receiver.ebpf.*}). */
public final class EbpfReceiverFactory implements ReceiverFactory {
  @Override
  public String name() {
    return EbpfReceiver.NAME;
  }

  @Override
  public List<ConfigKey> keys() {
    List<ConfigKey> keys = new ArrayList<>(EbpfReceiverConfig.KEYS);
    keys.addAll(SampledTraceConfig.KEYS);
    keys.addAll(ContinuousConfig.KEYS);
    keys.addAll(RoverMeterConfig.KEYS);
    keys.addAll(ProfilingConfig.KEYS);
    keys.addAll(ProcessServiceConfig.KEYS);
    keys.addAll(AccessLogConfig.KEYS);
    return List.copyOf(keys);
  }

  @Override
  public Receiver create(ReceiverContext context) {
    return new EbpfReceiver(context, EbpfReceiverConfig.load(context.settings()));
  }
}
