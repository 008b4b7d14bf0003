package io.sextant.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;

/**
 * Follows a server's {@code /readyz} every 20 ms, as a balancer does across a restart: a client that
 * keeps running (a sidecar, a browser with a dashboard open) sends nothing while the server is not
 * ready and comes back once it is. {@code onBack} runs once, the first time {@code /readyz}
 * answers 200 after it did not.
 */
final class RestartWatch {
  /**
   * A {@code /readyz} not answered within its timeout: a busy server, not one that went away (a
   * stopped one refuses the connection, a draining one answers 503). Counted as away, one slow
   * answer while the old server was loaded started the measurement before the restart.
   */
  private static final int UNANSWERED = -2;

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
  private final URI readyz;
  private final Runnable onBack;
  private volatile boolean ready = true;
  private volatile boolean wasAway;
  private volatile boolean back;

  RestartWatch(String httpAddress, Runnable onBack) {
    this.readyz = URI.create("http://" + httpAddress + "/readyz");
    this.onBack = onBack;
  }

  RestartWatch start() {
    Thread t = new Thread(this::follow, "restart-watch");
    t.setDaemon(true);
    t.start();
    return this;
  }

  /** The last {@code /readyz} answered 200 (true before the first answer). */
  boolean ready() {
    return ready;
  }

  /** The server went away and is ready again. */
  boolean back() {
    return back;
  }

  private void follow() {
    while (true) {
      int status = status();
      if (status != UNANSWERED) {
        observe(status == 200);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void observe(boolean now) {
    ready = now;
    if (!now) {
      wasAway = true;
    } else if (wasAway && !back) {
      back = true;
      onBack.run();
    }
  }

  private int status() {
    try {
      return http.send(HttpRequest.newBuilder(readyz).timeout(Duration.ofSeconds(1)).GET().build(),
          HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (HttpTimeoutException e) {
      return UNANSWERED;
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }
}
