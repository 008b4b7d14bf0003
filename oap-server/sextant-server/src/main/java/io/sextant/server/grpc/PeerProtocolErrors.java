package io.sextant.server.grpc;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Marker;

/**
 * Armeria logs a WARN with a stack trace for every connection whose peer breaks HTTP/2 (garbage
 * after the preface, a bad frame): a cheap way for anyone who reaches a port to flood the log.
 * This filter (installed by logback.xml) counts every such event and lets one through per
 * {@link #INTERVAL_MILLIS}; {@code sextant_peer_protocol_errors_total} shows the count.
 */
public final class PeerProtocolErrors extends TurboFilter {
  static final long INTERVAL_MILLIS = 60_000;
  private static final String HTTP2_HANDLER = "com.linecorp.armeria.internal.common.AbstractHttp2ConnectionHandler";
  private static final AtomicLong COUNT = new AtomicLong();
  private static final AtomicLong LAST_LOGGED = new AtomicLong(Long.MIN_VALUE / 2);

  /** Connection errors caused by peers since start. */
  public static long count() {
    return COUNT.get();
  }

  @Override
  public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params,
      Throwable t) {
    if (level != Level.WARN || !HTTP2_HANDLER.equals(logger.getName())) {
      return FilterReply.NEUTRAL;
    }
    COUNT.incrementAndGet();
    long now = System.currentTimeMillis();
    long last = LAST_LOGGED.get();
    return now - last >= INTERVAL_MILLIS && LAST_LOGGED.compareAndSet(last, now)
        ? FilterReply.NEUTRAL : FilterReply.DENY;
  }
}
