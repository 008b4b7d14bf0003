package io.sextant.receiver.ebpf.profiling;

import static io.sextant.api.config.ConfigKey.integer;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import io.sextant.receiver.ebpf.EbpfReceiverConfig;
import java.util.List;

/**
 * Bounds of Rover's profiling calls ({@code receiver.ebpf.profiling.*}): a stack-data message with
 * more than {@code maxStacksPerMessage} stacks, a stack of more than {@code maxSymbolsPerStack}
 * symbols or a symbol longer than {@code maxSymbolLength} is refused; consecutive samples of one
 * stream are stored {@code samplesPerBatch} to a record at most; the task list answering {@code
 * queryTasks} is read from storage at most every {@code taskCacheMillis} per collector (0: every
 * poll), so a new or kept-alive task reaches Rover at most that much later.
 */
public record ProfilingConfig(int maxStacksPerMessage, int maxSymbolsPerStack, int maxSymbolLength,
    int samplesPerBatch, int taskCacheMillis) {
  static final String P = EbpfReceiverConfig.P + "profiling.";

  public static final List<ConfigKey> KEYS = List.of(
      integer(P + "maxStacksPerMessage", 4, 1, 64,
          "stacks (kernel, user) in one profiling-data message; more is refused"),
      integer(P + "maxSymbolsPerStack", 1024, 1, 65_536, "symbols in one stack; more is refused"),
      integer(P + "maxSymbolLength", 4096, 16, 65_535, "longest stack symbol; longer is refused"),
      integer(P + "samplesPerBatch", 2000, 1, 100_000,
          "consecutive samples of one stream and upload stored as one record"),
      integer(P + "taskCacheMillis", 1000, 0, 60_000,
          "how long a collector reuses the task list answering Rover's task polls; 0 reads it every poll"));

  public static ProfilingConfig load(Settings s) {
    return new ProfilingConfig(s.integer(P + "maxStacksPerMessage"), s.integer(P + "maxSymbolsPerStack"),
        s.integer(P + "maxSymbolLength"), s.integer(P + "samplesPerBatch"), s.integer(P + "taskCacheMillis"));
  }
}
