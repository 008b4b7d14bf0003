package io.sextant.benchmarks;

import com.google.protobuf.MessageLite;
import io.grpc.Status;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * One long-lived client stream, as one sidecar keeps: sends pooled messages on its own thread,
 * paced to a rate if one is given, and never queues more than {@code window} messages in the
 * client: past that it waits until the call reports ready again ({@code isReady}/{@code
 * onReady}). If the server ends the stream, it counts the failure and opens a new one once
 * {@code mayConnect} says so. With {@code rotateBytes > 0} it completes its stream and opens a new
 * one before the stream carries more than that many bytes (a workaround for servers that cap a
 * request's total size; sidecars do not do this).
 *
 * <p>Protocol-neutral: {@code open} starts a client-streaming call (mesh telemetry's {@code
 * collect}, the access-log service's {@code StreamAccessLogs}, Rover's access-log {@code collect})
 * through a stub or as chunked raw gRPC ({@link ClientStream}); {@code firstMessage}, if given,
 * rewrites the first message of every stream it opens (Envoy puts its identifier there only, Rover
 * its node). A pool whose messages come in groups ({@link MessagePool#opens}) is sent a group at a
 * time: a stream starts with a group's first message, and a new pool is taken between groups.
 *
 * @param <Q> the request message
 */
final class StreamSender<Q extends MessageLite> implements Runnable {
  private final int id;
  private final ClientStream.Opener<Q> open;
  private final UnaryOperator<Q> firstMessage;
  private final Supplier<MessagePool<Q>> pools;
  private final double recordsPerSecond;
  private final int window;
  private final long rotateBytes;
  private final BooleanSupplier mayConnect;
  private final Thread thread;
  private volatile boolean stop;

  /** Records (mesh) or access-log entries (als) sent. */
  final AtomicLong records = new AtomicLong();
  /** Records the server should derive from what was sent. */
  final AtomicLong derived = new AtomicLong();
  final AtomicLong messages = new AtomicLong();
  final AtomicLong bytes = new AtomicLong();
  final AtomicLong streamsOpened = new AtomicLong();
  final AtomicLong streamsFailed = new AtomicLong();
  final AtomicLong readyWaits = new AtomicLong();
  final AtomicLong streamsRotated = new AtomicLong();
  final AtomicLong rotatedNotOk = new AtomicLong();
  private final AtomicLong rotatedOutstanding = new AtomicLong();
  volatile String lastError;
  volatile Status finalStatus;

  /** {@code mayConnect}: a new stream is opened only while it says so (the server ready). */
  StreamSender(int id, ClientStream.Opener<Q> open, UnaryOperator<Q> firstMessage,
      Supplier<MessagePool<Q>> pools, double recordsPerSecond, int window, long rotateBytes,
      BooleanSupplier mayConnect) {
    this.id = id;
    this.mayConnect = mayConnect;
    this.rotateBytes = rotateBytes;
    this.open = open;
    this.firstMessage = firstMessage;
    this.pools = pools;
    this.recordsPerSecond = recordsPerSecond;
    this.window = window;
    this.thread = new Thread(this, "loadgen-stream-" + id);
  }

  void start() {
    thread.start();
  }

  /** Stops sending, completes the stream and waits for the server's answer (bounded). */
  void stopAndJoin() throws InterruptedException {
    stop = true;
    LockSupport.unpark(thread);
    thread.join(30_000);
  }

  @Override
  public void run() {
    long nanosPerRecord = recordsPerSecond > 0 ? Math.max(1, (long) (1e9 / recordsPerSecond)) : 0;
    long nextSend = System.nanoTime();
    int cursor = id * 7_919;
    MessagePool<Q> pool = null;
    Thread self = Thread.currentThread();
    Runnable wake = () -> LockSupport.unpark(self);
    while (true) {
      while (!stop && !mayConnect.getAsBoolean()) {
        LockSupport.parkNanos(10_000_000L);
        nextSend = System.nanoTime(); // nothing to catch up for the time away
      }
      ClientStream<Q> out = open.open(wake);
      streamsOpened.incrementAndGet();
      int credit = window;
      long bytesOnStream = 0;
      long recordsOnStream = 0;
      boolean broken = false;
      boolean rotate = false;
      while (!stop) {
        if (out.done().isDone()) {
          broken = true;
          break;
        }
        if (out.isReady()) {
          credit = window; // everything written so far has been handed to the connection
        } else if (credit <= 0) {
          out.flush();
          readyWaits.incrementAndGet();
          LockSupport.parkNanos(1_000_000); // onReady unparks us sooner
          continue;
        }
        // A new pool is taken between groups only: a group's messages belong together (Rover: the
        // connection its first message describes), so the rest of one comes from its own pool.
        MessagePool<Q> latest = pools.get();
        if (latest != pool && (pool == null || pool.opens(cursor))) {
          pool = latest;
          cursor = pool.nextOpening(cursor);
        }
        if (bytesOnStream == 0) {
          cursor = pool.nextOpening(cursor); // a stream starts with a group
        }
        int index = Math.floorMod(cursor++, pool.size());
        int count = pool.records[index];
        Q message = pool.messages.get(index);
        byte[] framed = pool.framed[index];
        if (firstMessage != null && bytesOnStream == 0) {
          message = firstMessage.apply(message);
          framed = MessagePool.frame(message);
        }
        int size = framed.length - 5;
        if (rotateBytes > 0 && bytesOnStream > 0 && bytesOnStream + framed.length > rotateBytes) {
          cursor--;
          rotate = true;
          break;
        }
        if (nanosPerRecord > 0) {
          long now = System.nanoTime();
          if (now - nextSend > 1_000_000_000L) {
            nextSend = now - 1_000_000_000L; // after a stall, catch up at most one second's worth
          }
          if (now < nextSend) {
            out.flush(); // nothing waits in the client while we wait
          }
          while (!stop && (now = System.nanoTime()) < nextSend) {
            long wait = nextSend - now;
            if (wait > 50_000) {
              LockSupport.parkNanos(wait - 20_000);
            } else {
              Thread.onSpinWait();
            }
          }
          if (stop) {
            break;
          }
          nextSend += count * nanosPerRecord;
        }
        try {
          out.send(message, framed);
        } catch (RuntimeException e) {
          lastError = e.toString();
          broken = true;
          break;
        }
        credit--;
        messages.incrementAndGet();
        records.addAndGet(count);
        derived.addAndGet(pool.derived[index]);
        bytes.addAndGet(size);
        bytesOnStream += framed.length; // the message and its gRPC prefix
        recordsOnStream += count;
      }
      if (broken && !stop) {
        streamsFailed.incrementAndGet();
        Status s = out.done().getNow(null);
        if (s != null) {
          lastError = s.getCode() + (s.getDescription() == null ? "" : ": " + s.getDescription());
        }
        lastError += " after " + recordsOnStream + " records / " + bytesOnStream + " bytes on that stream";
        out.cancel("stream broken");
        LockSupport.parkNanos(200_000_000L); // back off before reconnecting, as a sidecar would
        continue;
      }
      if (rotate && !stop) {
        streamsRotated.incrementAndGet();
        rotatedOutstanding.incrementAndGet();
        // Only the callback matters (it counts the outcome); the future it returns carries nothing.
        CompletableFuture<?> unused = out.done().whenComplete((status, e) -> {
          if (status == null || !status.isOk()) {
            rotatedNotOk.incrementAndGet();
            lastError = "rotated stream ended with " + (status == null ? String.valueOf(e) : status.getCode()
                + (status.getDescription() == null ? "" : ": " + status.getDescription()));
          }
          rotatedOutstanding.decrementAndGet();
        });
        out.complete();
        continue;
      }
      if (!out.done().isDone()) {
        out.complete();
      }
      try {
        finalStatus = out.done().get(20, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        finalStatus = Status.DEADLINE_EXCEEDED.withDescription("no answer 20 s after completing the stream");
        out.cancel("no answer");
      } catch (ExecutionException e) {
        finalStatus = Status.fromThrowable(e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      long until = System.nanoTime() + 20_000_000_000L;
      while (rotatedOutstanding.get() > 0 && System.nanoTime() < until) {
        LockSupport.parkNanos(10_000_000L);
      }
      return;
    }
  }

  String describeFinal() {
    Status s = finalStatus;
    if (s == null) {
      return "stream " + id + ": no final status";
    }
    return "stream " + id + ": " + s.getCode() + (s.getDescription() == null ? "" : " (" + s.getDescription() + ")");
  }
}
