package io.sextant.receiver.ebpf;

import static io.sextant.api.config.ConfigKey.integer;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import java.util.List;

/**
 * Bounds of Rover's meters ({@code receiver.ebpf.*}): meters in one batch (a {@code collect} stream
 * or one collection), peers per local process and minute (past it a new peer's samples are refused),
 * and virtual processes remembered as written this minute.
 */
public record RoverMeterConfig(int maxMetersPerBatch, int maxRelationsPerProcess, int maxVirtualProcessesCached) {
  static final String P = EbpfReceiverConfig.P;

  public static final List<ConfigKey> KEYS = List.of(
      integer(P + "maxMetersPerBatch", 100_000, 1, 10_000_000,
          "meters in one MeterReportService batch (a collect stream or a collection); the rest are refused"),
      integer(P + "maxRelationsPerProcess", 1_000, 1, 1_000_000,
          "process relations per local process and minute; samples of further peers are refused"),
      integer(P + "maxVirtualProcessesCached", 100_000, 100, 10_000_000,
          "virtual processes remembered as written this minute (each is written at most once a minute)"));

  public static RoverMeterConfig load(Settings s) {
    return new RoverMeterConfig(s.integer(P + "maxMetersPerBatch"), s.integer(P + "maxRelationsPerProcess"),
        s.integer(P + "maxVirtualProcessesCached"));
  }
}
