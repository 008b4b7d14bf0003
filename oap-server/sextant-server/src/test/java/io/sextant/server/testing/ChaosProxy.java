package io.sextant.server.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy that misbehaves on demand, between a collector and its Elasticsearch: it passes
 * bytes, delays every chunk, resets every connection (RST, as a crashing load balancer does), or
 * swallows requests and never answers (a half-open peer). Plain sockets, one thread per direction.
 */
public final class ChaosProxy implements AutoCloseable {
  /** What the proxy does now. */
  public enum Mode { PASS, DELAY, RESET, BLACKHOLE }

  private static final int DELAY_MILLIS = 300;
  private final ServerSocket listener;
  private final InetSocketAddress upstream;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private volatile Mode mode = Mode.PASS;
  private volatile boolean closed;

  public ChaosProxy(String upstreamHostAndPort) throws IOException {
    int colon = upstreamHostAndPort.lastIndexOf(':');
    this.upstream = new InetSocketAddress(upstreamHostAndPort.substring(0, colon),
        Integer.parseInt(upstreamHostAndPort.substring(colon + 1)));
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread accept = new Thread(this::accept, "chaos-proxy-accept");
    accept.setDaemon(true);
    accept.start();
  }

  public String hostAndPort() {
    return "127.0.0.1:" + listener.getLocalPort();
  }

  /** Switches the behaviour; RESET also cuts every open connection at once. */
  public void mode(Mode next) {
    mode = next;
    if (next == Mode.RESET) {
      open.forEach(ChaosProxy::reset);
    }
  }

  private void accept() {
    while (!closed) {
      try {
        Socket client = listener.accept();
        if (mode == Mode.RESET) {
          reset(client);
          continue;
        }
        Socket server = new Socket();
        server.connect(upstream, 2000);
        open.add(client);
        open.add(server);
        pump(client, server);
        pump(server, client);
      } catch (IOException e) {
        if (closed) {
          return;
        }
      }
    }
  }

  private void pump(Socket from, Socket to) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[16 << 10];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
          Mode m = mode;
          if (m == Mode.BLACKHOLE) {
            continue; // read and swallowed: the peer waits for an answer that never comes
          }
          if (m == Mode.DELAY) {
            Thread.sleep(DELAY_MILLIS);
          }
          out.write(buf, 0, n);
          out.flush();
        }
      } catch (IOException | InterruptedException e) {
        // the other side went away, or the proxy reset it
      } finally {
        reset(from);
        reset(to);
        open.remove(from);
        open.remove(to);
      }
    }, "chaos-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  private static void reset(Socket s) {
    try {
      s.setSoLinger(true, 0); // close with RST, not FIN
      s.close();
    } catch (IOException ignored) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    listener.close();
    open.forEach(ChaosProxy::reset);
  }
}
