package io.sextant.server.grpc;

import com.linecorp.armeria.server.ServiceRequestContext;
import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * At most {@code server.maxMessagesPerSecondPerPeer} client-stream messages per second from one
 * address (all its streams together), by slowing the peer down rather than refusing it: a
 * stream's next message is asked for only when the peer's budget allows it, so the peer's
 * HTTP/2 window fills and it waits. Nothing it sent is refused or lost; a peer that floods
 * simply gets the rate, and every other peer keeps its own. A budget is a token bucket of one
 * second's messages. Unary calls are not counted (they are one message each and short).
 */
public final class PeerMessageRate implements ServerInterceptor {
  private static final Logger LOG = LoggerFactory.getLogger(PeerMessageRate.class);
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
  /** Budgets of peers silent this long are forgotten when there are too many. */
  private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(60);
  private static final long LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(60);

  private final long perSecond;
  private final int maxPeers;
  private final LongSupplier nanos;
  private final ConcurrentHashMap<InetAddress, Budget> budgets = new ConcurrentHashMap<>();
  private final Counter delayed;
  private final Counter delayNanos;
  private final AtomicLong lastLog = new AtomicLong(Long.MIN_VALUE / 2);

  public PeerMessageRate(long perSecond, int maxPeers, MeterRegistry registry) {
    this(perSecond, maxPeers, registry, System::nanoTime);
  }

  PeerMessageRate(long perSecond, int maxPeers, MeterRegistry registry, LongSupplier nanos) {
    this.perSecond = perSecond;
    this.maxPeers = maxPeers;
    this.nanos = nanos;
    this.delayed = Counter.builder("sextant_grpc_throttled_messages")
        .description("client-stream messages read later because their peer sent more than"
            + " server.maxMessagesPerSecondPerPeer")
        .register(registry);
    this.delayNanos = Counter.builder("sextant_grpc_throttle_delay_seconds")
        .description("time messages of throttled peers waited before being read").baseUnit("seconds")
        .register(registry);
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
      ServerCallHandler<Q, R> next) {
    ServiceRequestContext ctx = ServiceRequestContext.currentOrNull();
    if (ctx == null || call.getMethodDescriptor().getType().clientSendsOneMessage()) {
      return next.startCall(call, headers);
    }
    return next.startCall(new Throttled<>(call, ctx, ctx.remoteAddress().getAddress()), headers);
  }

  /**
   * Reserves {@code n} messages of {@code peer}'s budget; returns how long the caller must wait
   * before reading them (0: at once).
   */
  long reserve(InetAddress peer, int n) {
    long now = nanos.getAsLong();
    Budget b = budgets.computeIfAbsent(peer, p -> new Budget(perSecond, now));
    if (budgets.size() > maxPeers) {
      budgets.values().removeIf(o -> o != b && now - o.lastUse() > IDLE_NANOS);
    }
    long wait = b.reserve(n, now, perSecond);
    if (wait > 0) {
      delayed.increment(n);
      delayNanos.increment(wait / 1e9);
      long last = lastLog.get();
      if (now - last > LOG_INTERVAL_NANOS && lastLog.compareAndSet(last, now)) {
        LOG.warn("peer {} sends more than {} messages a second (server.maxMessagesPerSecondPerPeer): its streams"
            + " are read at that rate; sextant_grpc_throttled_messages_total counts what waited", peer.getHostAddress(),
            perSecond);
      }
    }
    return wait;
  }

  /** Peers with a budget (bounded by the connections allowed, idle ones forgotten past it). */
  int peers() {
    return budgets.size();
  }

  /** A token bucket of one second's messages; tokens may go negative: the debt is the wait. */
  private static final class Budget {
    private double tokens;
    private long refilled;
    private volatile long lastUse;

    Budget(long perSecond, long now) {
      this.tokens = perSecond;
      this.refilled = now;
      this.lastUse = now;
    }

    synchronized long reserve(int n, long now, long perSecond) {
      tokens = Math.min(perSecond, tokens + (now - refilled) * (double) perSecond / SECOND);
      refilled = now;
      lastUse = now;
      tokens -= n;
      return tokens >= 0 ? 0 : (long) (-tokens * SECOND / perSecond);
    }

    long lastUse() {
      return lastUse;
    }
  }

  /** A stream whose requests for more messages wait for its peer's budget. */
  private final class Throttled<Q, R> extends ForwardingServerCall.SimpleForwardingServerCall<Q, R> {
    private final ServiceRequestContext ctx;
    private final InetAddress peer;

    Throttled(ServerCall<Q, R> call, ServiceRequestContext ctx, InetAddress peer) {
      super(call);
      this.ctx = ctx;
      this.peer = peer;
    }

    @Override
    public void request(int numMessages) {
      long wait = reserve(peer, numMessages);
      if (wait == 0) {
        super.request(numMessages);
      } else {
        ctx.eventLoop().schedule(() -> super.request(numMessages), wait, TimeUnit.NANOSECONDS);
      }
    }
  }
}
