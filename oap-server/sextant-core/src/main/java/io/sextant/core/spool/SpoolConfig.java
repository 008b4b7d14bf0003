package io.sextant.core.spool;

import java.nio.file.Path;

/**
 * Where and how the spool keeps what the collector accepted and has not yet written.
 *
 * @param maxBytes past it the oldest cuts are dropped (counted): storage down for longer than the
 *     spool holds loses the oldest data, as the memory queue does
 * @param fsync when the spool forces its files to the device (see {@link Fsync})
 */
public record SpoolConfig(Path directory, long maxBytes, Fsync fsync, long fsyncIntervalMillis) {

  /** When written data is forced to the device; every choice survives a killed process. */
  public enum Fsync {
    /** Never by the spool: the kernel writes it back (a machine crash loses its last seconds). */
    NEVER,
    /** Observations every {@code fsyncIntervalMillis}, each cut when it is complete. */
    INTERVAL,
    /** After every write: each gRPC message's records before the next message is read. */
    ALWAYS
  }
}
