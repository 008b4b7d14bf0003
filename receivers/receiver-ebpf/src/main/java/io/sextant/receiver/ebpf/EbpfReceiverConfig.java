package io.sextant.receiver.ebpf;

import static io.sextant.api.config.ConfigKey.bool;
import static io.sextant.api.config.ConfigKey.integer;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import java.util.List;

/**
 * Configuration shared by the Rover services ({@code receiver.ebpf.*}): Rover's calls that read or
 * write storage run on {@code callThreads} threads with at most {@code maxQueuedCalls} waiting;
 * past that a call is answered {@code RESOURCE_EXHAUSTED} and Rover retries on its next tick. Names
 * (services, instances, processes, labels, symbols) longer than {@code maxStringLength} are refused.
 */
public record EbpfReceiverConfig(int callThreads, int maxQueuedCalls, int maxStringLength) {
  public static final String P = "receiver.ebpf.";

  public static final List<ConfigKey> KEYS = List.of(
      bool(P + "enabled", true, "serve SkyWalking Rover: EBPFProcessService, EBPFProfilingService, "
          + "ContinuousProfilingService and its network-profiling meters on MeterReportService"),
      integer(P + "callThreads", 4, 1, 256, "threads running Rover's calls that read or write storage"),
      integer(P + "maxQueuedCalls", 1_000, 1, 1_000_000,
          "Rover calls waiting for a thread; past it RESOURCE_EXHAUSTED"),
      integer(P + "maxStringLength", 1024, 16, 65536, "longest service, instance, process, label or property"));

  public static EbpfReceiverConfig load(Settings s) {
    return new EbpfReceiverConfig(s.integer(P + "callThreads"), s.integer(P + "maxQueuedCalls"),
        s.integer(P + "maxStringLength"));
  }
}
