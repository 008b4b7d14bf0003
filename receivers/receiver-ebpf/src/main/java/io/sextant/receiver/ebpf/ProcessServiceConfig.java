package io.sextant.receiver.ebpf;

import static io.sextant.api.config.ConfigKey.integer;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import java.util.List;

/**
 * Bounds of Rover's process registration ({@code receiver.ebpf.*}): processes in one report or ping
 * list, processes alive per service (counted by this collector, see {@link ServiceProcessLimit}),
 * and the processes, services and instances this collector remembers having written this minute.
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
          "processes, services and instances a collector remembers, to write each at most once a minute"));

  public static ProcessServiceConfig load(Settings s) {
    return new ProcessServiceConfig(s.integer(P + "maxProcessesPerReport"), s.integer(P + "maxProcessesPerService"),
        s.integer(P + "maxTrackedEntities"));
  }
}
