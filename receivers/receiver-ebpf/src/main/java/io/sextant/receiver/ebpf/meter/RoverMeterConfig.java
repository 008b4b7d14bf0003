package io.sextant.receiver.ebpf.meter;

import static io.sextant.api.config.ConfigKey.integer;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import io.sextant.receiver.ebpf.EbpfReceiverConfig;
import java.util.List;

/**
 * Bounds of Rover's meters ({@code receiver.ebpf.*}): meters in one batch (a {@code collect} stream
 * or one collection) and peers per local process and minute (past it a new peer's samples are
 * refused).
 */
public record RoverMeterConfig(int maxMetersPerBatch, int maxRelationsPerProcess) {
  static final String P = EbpfReceiverConfig.P;

  public static final List<ConfigKey> KEYS = List.of(
      integer(P + "maxMetersPerBatch", 100_000, 1, 10_000_000,
          "meters in one MeterReportService batch (a collect stream or a collection); the rest are refused"),
      integer(P + "maxRelationsPerProcess", 1_000, 1, 1_000_000,
          "process relations per local process and minute; samples of further peers are refused"));

  public static RoverMeterConfig load(Settings s) {
    return new RoverMeterConfig(s.integer(P + "maxMetersPerBatch"), s.integer(P + "maxRelationsPerProcess"));
  }
}
