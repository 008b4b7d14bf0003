package io.sextant.server.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy that misbehaves on demand, between a collector and its Elasticsearch: it passes
 * bytes, delays every chunk, resets every connection (RST, as a crashing load balancer does),
 * swallows requests and never answers (a half-open peer), or answers every request itself with
 * 429 (Elasticsearch's push-back) or 503 (no master, shards unavailable) as Elasticsearch words
 * them. Plain sockets, one thread per direction.
 */
public final class ChaosProxy implements AutoCloseable {
  /** What the proxy does now. */
  public enum Mode { PASS, DELAY, RESET, BLACKHOLE, TOO_MANY_REQUESTS, UNAVAILABLE }

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

  /** Switches the behaviour; RESET and the answering modes also cut every open connection at once. */
  public void mode(Mode next) {
    mode = next;
    if (next == Mode.RESET || answers(next)) {
      open.forEach(ChaosProxy::reset);
    }
  }

  private static boolean answers(Mode m) {
    return m == Mode.TOO_MANY_REQUESTS || m == Mode.UNAVAILABLE;
  }

  private void accept() {
    while (!closed) {
      try {
        Socket client = listener.accept();
        if (mode == Mode.RESET) {
          reset(client);
          continue;
        }
        if (answers(mode)) {
          open.add(client);
          Thread t = new Thread(() -> answer(client), "chaos-proxy-answer");
          t.setDaemon(true);
          t.start();
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
            Thread.sleep(DELAY_MILLIS); // the delay is the fault this mode injects
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

  /** Reads each request whole and answers it with the mode's error, as long as the mode lasts. */
  private void answer(Socket client) {
    try (InputStream in = client.getInputStream(); OutputStream out = client.getOutputStream()) {
      while (answers(mode) && readRequest(in)) {
        boolean push = mode == Mode.TOO_MANY_REQUESTS;
        String body = push
            ? "{\"error\":{\"type\":\"es_rejected_execution_exception\",\"reason\":\"rejected execution (chaos "
                + "proxy)\"},\"status\":429}"
            : "{\"error\":{\"type\":\"master_not_discovered_exception\",\"reason\":\"no master (chaos proxy)\"},"
                + "\"status\":503}";
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        out.write(((push ? "HTTP/1.1 429 Too Many Requests" : "HTTP/1.1 503 Service Unavailable")
            + "\r\nContent-Type: application/json\r\nX-elastic-product: Elasticsearch\r\nContent-Length: "
            + bytes.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.flush();
      }
    } catch (IOException e) {
      // the client went away, or the proxy reset it
    } finally {
      reset(client);
      open.remove(client);
    }
  }

  /** Reads one HTTP/1.1 request (headers, then a Content-Length or chunked body); false at the end. */
  private static boolean readRequest(InputStream in) throws IOException {
    String head = readUntil(in, "\r\n\r\n");
    if (head == null) {
      return false;
    }
    String lower = head.toLowerCase(java.util.Locale.ROOT);
    int length = lower.indexOf("content-length:");
    if (length >= 0) {
      int end = lower.indexOf("\r\n", length);
      in.readNBytes(Integer.parseInt(lower.substring(length + 15, end).trim()));
    } else if (lower.contains("transfer-encoding: chunked")) {
      while (true) {
        String size = readUntil(in, "\r\n");
        int n = Integer.parseInt(size.trim().split(";")[0], 16);
        in.readNBytes(n + 2); // the chunk and its CRLF (the last chunk: the final CRLF)
        if (n == 0) {
          break;
        }
      }
    }
    return true;
  }

  private static String readUntil(InputStream in, String end) throws IOException {
    StringBuilder sb = new StringBuilder();
    for (int b = in.read(); b >= 0; b = in.read()) {
      sb.append((char) b);
      if (sb.length() >= end.length() && sb.lastIndexOf(end) == sb.length() - end.length()) {
        return sb.toString();
      }
    }
    return null;
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
