package io.sextant.api.component;

/**
 * A part of the server with a lifecycle. Constructors do no I/O; {@link #start()} may; {@link
 * #close()} is idempotent and safe without a start.
 */
public interface Component extends AutoCloseable {
  default void start() {}

  /** Cheap health probe, used by {@code /readyz} and {@code checkHealth}. */
  default CheckResult check() {
    return CheckResult.OK;
  }

  @Override
  void close();
}
