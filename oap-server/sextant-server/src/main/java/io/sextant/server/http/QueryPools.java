package io.sextant.server.http;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The GraphQL side's two pools: one for requests, one for the expressions within a request. */
public final class QueryPools {
  private QueryPools() {}

  /**
   * Runs GraphQL requests: {@code threads} of them (0: the cores, at least 2) and {@code queued}
   * waiting, refused past that. As many CPU-bound threads as cores leave the event loops, which
   * answer the probes and read every request, their share of the CPU.
   */
  public static ThreadPoolExecutor requests(int threads, int queued) {
    int n = threads > 0 ? threads : Math.max(2, Runtime.getRuntime().availableProcessors());
    return new ThreadPoolExecutor(n, n, 60, TimeUnit.SECONDS,
        queued > 0 ? new ArrayBlockingQueue<>(queued) : new SynchronousQueue<>(), daemonThreads("sextant-query-"),
        new ThreadPoolExecutor.AbortPolicy());
  }

  /**
   * Runs the expressions of one GraphQL request at once. Bounded: when every thread is busy and
   * the queue is full, the request's own thread runs the expression (never refused).
   */
  public static ThreadPoolExecutor expressions(int threads) {
    return new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1_000),
        daemonThreads("sextant-expression-"), new ThreadPoolExecutor.CallerRunsPolicy());
  }

  /** Daemon threads named {@code prefix} and a number from 1. */
  private static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
