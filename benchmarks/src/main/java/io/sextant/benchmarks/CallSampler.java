package io.sextant.benchmarks;

import io.sextant.benchmarks.MeshTopology.Edge;
import io.sextant.benchmarks.MeshTopology.Instance;
import io.sextant.benchmarks.MeshTopology.Kind;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Draws one simulated call at a time from a topology: which edge, which pods, which endpoint, how
 * long it took on each side, whether it failed. The fields describe the last call drawn; they are
 * reused to keep drawing cheap. Not thread-safe.
 */
final class CallSampler {
  private final MeshTopology topology;
  private final double tcpRatio;
  private final double errorRatio;
  private final SplittableRandom rnd;
  /** Calls end up to this many minutes before "now" (0: just before now); see {@link #backfill}. */
  private int backfillMinutes;
  private long backfillStartMillis;
  private long backfillDurationMillis;
  /** How far before "now" the replay ends ({@code --backfill-end}); 0 = it ends at now. */
  private long backfillLagMillis;

  Edge edge;
  /** Null when the caller is outside the mesh (no client-side report). */
  Instance source;
  Instance dest;
  /** Empty for TCP. */
  String endpoint;
  int serverLatencyMillis;
  int clientLatencyMillis;
  long clientStartMillis;
  long serverStartMillis;
  int responseCode;
  boolean success;
  String internalErrorCode;
  long clientRequestNanos;
  long clientResponseNanos;
  long serverRequestNanos;
  long serverResponseNanos;
  /** TCP only: bytes the client sent (the server received) and the server sent back. */
  long requestBytes;
  long responseBytes;

  CallSampler(MeshTopology topology, double tcpRatio, double errorRatio, long seed) {
    this.topology = topology;
    this.tcpRatio = topology.tcpEdges.isEmpty() ? 0 : tcpRatio;
    this.errorRatio = errorRatio;
    this.rnd = new SplittableRandom(seed);
  }

  /**
   * Replays the last {@code minutes} minutes during a run of {@code durationMillis} from {@code
   * startMillis}: calls are shifted back by whole minutes, from {@code minutes - 1} at the start
   * down to 0 at the end, so an hour of history exists without waiting an hour and each past
   * minute is sent in one burst, as a collector catching up would (minutes are not revisited, so
   * each gets few partials). 0 turns it off (and draws exactly the same calls as before).
   */
  CallSampler backfill(int minutes, long startMillis, long durationMillis) {
    return backfill(minutes, startMillis, durationMillis, 0);
  }

  /**
   * As {@link #backfill(int, long, long)}, but the replay ends {@code lagMillis} before the run's
   * end: several runs one after another can replay the same minutes (the same data written by
   * several writers).
   */
  CallSampler backfill(int minutes, long startMillis, long durationMillis, long lagMillis) {
    if (minutes < 0 || lagMillis < 0) {
      throw new IllegalArgumentException("backfill minutes and lag must be >= 0, got " + minutes + ", " + lagMillis);
    }
    this.backfillLagMillis = lagMillis;
    this.backfillMinutes = minutes;
    this.backfillStartMillis = startMillis;
    this.backfillDurationMillis = Math.max(1, durationMillis);
    return this;
  }

  private long backfillShiftMillis(long nowMillis) {
    long progress = Math.max(0, nowMillis - backfillStartMillis) * backfillMinutes / backfillDurationMillis;
    return Math.max(0, backfillMinutes - 1 - progress) * 60_000L;
  }

  boolean isTcp() {
    return edge.kind() == Kind.TCP;
  }

  /** Draws the next call, ending shortly before {@code nowMillis}. */
  void next(long nowMillis) {
    if (tcpRatio > 0 && rnd.nextDouble() < tcpRatio) {
      edge = topology.tcpEdges.get(rnd.nextInt(topology.tcpEdges.size()));
    } else {
      double[] cumulative = topology.l7Cumulative;
      int i = Arrays.binarySearch(cumulative, rnd.nextDouble() * cumulative[cumulative.length - 1]);
      edge = topology.l7Edges.get(Math.min(cumulative.length - 1, i < 0 ? -i - 1 : i));
    }
    source = edge.source == null ? null : edge.sourceInstances.get(rnd.nextInt(edge.sourceInstances.size()));
    dest = edge.dest.instances.get(rnd.nextInt(edge.dest.instances.size()));
    drawDetails(nowMillis);
  }

  /**
   * Draws a call on a given edge between given pods (the caller may be null for a client outside
   * the mesh): endpoint, latencies, outcome. Used by the access-log traffic, which picks the edge and
   * pods from one proxy's point of view.
   */
  void next(Edge edge, Instance source, Instance dest, long nowMillis) {
    this.edge = edge;
    this.source = source;
    this.dest = dest;
    drawDetails(nowMillis);
  }

  /** This sampler's random source, for callers that pick edges themselves. */
  SplittableRandom random() {
    return rnd;
  }

  private void drawDetails(long nowMillis) {
    String[] endpoints = edge.dest.endpoints;
    if (endpoints.length == 0) {
      endpoint = "";
    } else {
      // Skewed toward the first endpoints: a few hot paths and a long tail, as in real traffic.
      double u = rnd.nextDouble();
      endpoint = endpoints[(int) (endpoints.length * u * u)];
    }

    boolean failed = errorRatio > 0 && rnd.nextDouble() < errorRatio;
    double latency = edge.medianMillis * Math.exp(edge.sigma * rnd.nextGaussian());
    internalErrorCode = "";
    success = !failed;
    responseCode = 200;
    if (failed) {
      double kind = rnd.nextDouble();
      if (kind < 0.25) {
        responseCode = 503; // upstream connection failure: fails fast
        internalErrorCode = "UF";
        latency = Math.min(latency, 1 + rnd.nextInt(3));
      } else if (kind < 0.4) {
        responseCode = 504; // upstream request timeout
        internalErrorCode = "UT";
        latency = 1000 + latency * 10;
      } else {
        responseCode = 500;
      }
    }
    serverLatencyMillis = (int) Math.max(0, Math.min(60_000, Math.round(latency)));
    // The client side also sees the network and both sidecars.
    clientLatencyMillis = serverLatencyMillis + 1 + rnd.nextInt(3);
    long endMillis = backfillMinutes > 0 ? nowMillis - backfillShiftMillis(nowMillis) - backfillLagMillis : nowMillis;
    clientStartMillis = endMillis - clientLatencyMillis - rnd.nextInt(200);
    serverStartMillis = clientStartMillis + (clientLatencyMillis - serverLatencyMillis) / 2;
    clientRequestNanos = sidecarNanos(120_000);
    clientResponseNanos = sidecarNanos(60_000);
    serverRequestNanos = sidecarNanos(120_000);
    serverResponseNanos = sidecarNanos(60_000);
    if (isTcp()) {
      requestBytes = (long) (512 * Math.exp(0.9 * rnd.nextGaussian()));
      responseBytes = (long) (4096 * Math.exp(1.1 * rnd.nextGaussian()));
    }
  }

  private long sidecarNanos(double median) {
    return (long) (median * Math.exp(0.5 * rnd.nextGaussian()));
  }
}
