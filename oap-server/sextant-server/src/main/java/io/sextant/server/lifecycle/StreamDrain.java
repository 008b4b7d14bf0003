package io.sextant.server.lifecycle;

import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Ends the open client streams of a collector that is stopping, at once, with {@code UNAVAILABLE}
 * and a message that tells the client to reconnect elsewhere, and refuses new ones the same way.
 * A sidecar's stream otherwise stays open until the server's grace period runs out, and all that
 * time the sidecar sends into a collector that is about to go. The status says how many messages
 * of the stream were handled before the end, so a client that reads it knows its exact loss (the
 * mesh protocols have no per-message acknowledgement).
 *
 * <p>Unary calls are left alone: they are short and finish within {@code server.shutdownGraceSeconds}.
 */
public final class StreamDrain implements ServerInterceptor {
  static final String MESSAGE = "collector is shutting down; reconnect to another collector";

  private final Set<DrainableCall<?, ?>> open = ConcurrentHashMap.newKeySet();
  private volatile boolean draining;

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
      ServerCallHandler<Q, R> next) {
    if (call.getMethodDescriptor().getType().clientSendsOneMessage()) {
      return next.startCall(call, headers);
    }
    if (draining) {
      call.close(Status.UNAVAILABLE.withDescription(MESSAGE + " (0 messages of this stream were handled)"),
          new Metadata());
      return new ServerCall.Listener<>() {};
    }
    DrainableCall<Q, R> drainable = new DrainableCall<>(call);
    open.add(drainable);
    if (draining) { // drain() ran between the check above and the add: it may have missed this call
      drainable.end();
    }
    return drainable.listen(next.startCall(drainable, headers));
  }

  /** Ends every open stream and refuses new ones from now on; returns how many were ended. */
  public int drain() {
    draining = true;
    int ended = 0;
    for (DrainableCall<?, ?> call : open) {
      if (call.end()) {
        ended++;
      }
    }
    return ended;
  }

  /**
   * One stream. Every path that closes it or hands it a message takes its lock, so the drain's
   * end never races the receiver's own end (gRPC allows one close per call) and the count of
   * handled messages in the status is exact: nothing is handled after it.
   */
  private final class DrainableCall<Q, R> extends ForwardingServerCall.SimpleForwardingServerCall<Q, R> {
    private boolean closed;
    private long handled;

    DrainableCall(ServerCall<Q, R> call) {
      super(call);
    }

    synchronized boolean end() {
      if (closed) {
        return false;
      }
      closed = true;
      super.close(Status.UNAVAILABLE.withDescription(MESSAGE + " (" + handled
          + " messages of this stream were handled)"), new Metadata());
      return true;
    }

    @Override
    public synchronized void close(Status status, Metadata trailers) {
      if (!closed) {
        closed = true;
        super.close(status, trailers);
      }
    }

    @Override
    public synchronized void sendMessage(R message) {
      if (!closed) {
        super.sendMessage(message);
      }
    }

    @Override
    public synchronized void sendHeaders(Metadata headers) {
      if (!closed) {
        super.sendHeaders(headers);
      }
    }

    ServerCall.Listener<Q> listen(ServerCall.Listener<Q> listener) {
      return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
        @Override
        public void onMessage(Q message) {
          synchronized (DrainableCall.this) {
            if (!closed) {
              super.onMessage(message);
              handled++;
            }
          }
        }

        @Override
        public void onHalfClose() {
          synchronized (DrainableCall.this) {
            if (!closed) {
              super.onHalfClose();
            }
          }
        }

        @Override
        public void onCancel() {
          open.remove(DrainableCall.this);
          super.onCancel();
        }

        @Override
        public void onComplete() {
          open.remove(DrainableCall.this);
          super.onComplete();
        }
      };
    }
  }
}
