package io.sextant.receiver.ebpf;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.sextant.receiver.common.ReceiverMetrics;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs Rover's unary calls that touch storage off the network threads, on a bounded pool, and turns
 * what goes wrong into a gRPC status with a message, counted by reason: bad input ({@link
 * IllegalArgumentException}) is {@code INVALID_ARGUMENT}, a full pool {@code RESOURCE_EXHAUSTED},
 * anything else (storage down) {@code UNAVAILABLE}. A call that throws a {@link
 * StatusRuntimeException} answers that status.
 */
public final class BlockingCalls implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BlockingCalls.class);

  private final ThreadPoolExecutor pool;
  private final ReceiverMetrics metrics;

  BlockingCalls(int threads, int maxQueued, ReceiverMetrics metrics) {
    AtomicInteger n = new AtomicInteger();
    this.pool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(maxQueued),
        r -> {
          Thread t = new Thread(r, "sextant-rover-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
    this.metrics = metrics;
  }

  /** Answers {@code response} with what {@code call} returns, or with the status its failure maps to. */
  public <T> void unary(String method, StreamObserver<T> response, Callable<T> call) {
    metrics.message();
    answer(method, response, call);
  }

  /** As {@link #unary}, for the answer of a client stream whose messages were counted as they came. */
  public <T> void answer(String method, StreamObserver<T> response, Callable<T> call) {
    try {
      pool.execute(() -> {
        T result;
        try {
          result = call.call();
        } catch (Exception e) {
          response.onError(statusOf(method, e).asRuntimeException());
          return;
        }
        response.onNext(result);
        response.onCompleted();
      });
    } catch (RejectedExecutionException e) {
      metrics.rejected("overloaded", 1);
      response.onError(Status.RESOURCE_EXHAUSTED
          .withDescription("too many Rover calls waiting; retry later").asRuntimeException());
    }
  }

  /** Runs {@code task} on the pool (a stream's storage work); false, and nothing runs, when the pool is full. */
  public boolean tryExecute(Runnable task) {
    try {
      pool.execute(task);
      return true;
    } catch (RejectedExecutionException e) {
      return false;
    }
  }

  /** The status a failed call answers, counted by reason. */
  Status statusOf(String method, Exception e) {
    if (e instanceof StatusRuntimeException s) {
      return s.getStatus();
    }
    if (e instanceof IllegalArgumentException) {
      metrics.rejected("invalid", 1);
      return Status.INVALID_ARGUMENT.withDescription(e.getMessage());
    }
    metrics.rejected("storage_unavailable", 1);
    LOG.warn("Rover {} failed: {}", method, e.toString());
    return Status.UNAVAILABLE.withDescription("storage unavailable: " + e.getMessage());
  }

  @Override
  public void close() {
    pool.shutdown();
    try {
      if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
        pool.shutdownNow();
      }
    } catch (InterruptedException e) {
      pool.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
