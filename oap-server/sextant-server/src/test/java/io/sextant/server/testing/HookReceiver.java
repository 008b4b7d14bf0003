package io.sextant.server.testing;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/** An HTTP server standing in for Slack, PagerDuty, a webhook...: keeps every request it gets. */
public final class HookReceiver implements AutoCloseable {
  /** One request as received. */
  public record Request(String path, String query, Map<String, List<String>> headers, String body) {}

  private final HttpServer server;
  private final List<Request> requests = new CopyOnWriteArrayList<>();

  public HookReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", exchange -> {
      URI uri = exchange.getRequestURI();
      requests.add(new Request(uri.getPath(), uri.getRawQuery(), Map.copyOf(exchange.getRequestHeaders()),
          new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    server.start();
  }

  public String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  /** The requests to {@code path} so far. */
  public List<Request> to(String path) {
    List<Request> out = new ArrayList<>();
    requests.stream().filter(r -> r.path().equals(path)).forEach(out::add);
    return out;
  }

  public List<Request> all() {
    return List.copyOf(requests);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
