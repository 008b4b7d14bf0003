package io.sextant.benchmarks;

import io.sextant.testkit.poll.Poll;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Runs the benchmark tools in a test: their output and exit status, their options, free ports. */
final class ToolRuns {
  private ToolRuns() {}

  /** A tool's {@code execute(...)}: its exit status. */
  interface Tool {
    int run() throws Exception;
  }

  /** The tool's standard output, with its exit status as the last line ("exit N"). */
  static synchronized String capture(Tool tool) throws Exception {
    PrintStream stdout = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    int exit;
    try {
      exit = tool.run();
    } finally {
      System.setOut(stdout);
    }
    String out = bytes.toString(StandardCharsets.UTF_8);
    stdout.print(out);
    return out + "exit " + exit;
  }

  static String[] concat(String[] a, String... b) {
    String[] out = new String[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /** Waits (at most 10 s) until listServices names a service starting with {@code prefix}. */
  static void awaitListed(String http, String prefix) throws Exception {
    HttpClient client = HttpClient.newHttpClient();
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + http + "/graphql"))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"query\":\"{ listServices(layer: \\\"MESH\\\") { name } }\"}"))
        .build();
    Poll.until("a service " + prefix + "* listed", Duration.ofSeconds(10),
        () -> client.send(request, HttpResponse.BodyHandlers.ofString()).body(),
        body -> body.contains("\"name\":\"" + prefix));
  }
}
