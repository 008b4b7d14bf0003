package io.sextant.receiver.ebpf.process;

import static io.sextant.api.config.ConfigKey.integer;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import io.sextant.receiver.ebpf.EbpfReceiverConfig;
import java.util.List;

/**
 * Bounds of Rover's process registration ({@code receiver.ebpf.*}): processes in one report or ping
 * list, and processes alive per service (counted by this collector over at most {@code
 * maxTrackedEntities} processes, see {@link ServiceProcessLimit}).
 */
public record ProcessServiceConfig(int maxProcessesPerReport, int maxProcessesPerService, int maxTrackedEntities) {
  static final String P = EbpfReceiverConfig.P;

  public static final List<ConfigKey> KEYS = List.of(
      integer(P + "maxProcessesPerReport", 5_000, 1, 1_000_000,
          "processes in one reportProcesses or keepAlive call; past it the call is refused (RESOURCE_EXHAUSTED)"),
      integer(P + "maxProcessesPerService", 2_000, 1, 1_000_000,
          "processes alive (pinged in the last 10 minutes) per service, counted by each collector; "
              + "more are left out of the answer and not stored"),
      integer(P + "maxTrackedEntities", 200_000, 1_000, 10_000_000,
          "processes a collector tracks to count each service's live processes; past it it forgets them all"));

  public static ProcessServiceConfig load(Settings s) {
    return new ProcessServiceConfig(s.integer(P + "maxProcessesPerReport"), s.integer(P + "maxProcessesPerService"),
        s.integer(P + "maxTrackedEntities"));
  }
}
