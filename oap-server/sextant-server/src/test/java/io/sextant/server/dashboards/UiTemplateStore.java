package io.sextant.server.dashboards;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sextant.server.testing.TestServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * SkyWalking 11's template store ({@code /ui-management/templates}) as Horizon v0.7.0 calls it, over
 * real HTTP: its request shapes ({@code apps/bff/src} of Horizon: the list with disabled rows, the
 * create it seeds with, the update and disable of its admin pages).
 */
public final class UiTemplateStore {
  private static final ObjectMapper JSON = new ObjectMapper();
  public static final String PATH = "/ui-management/templates";

  /** A status and the body it came with. */
  public record Answer(int status, String body) {
    public JsonNode json() throws Exception {
      return JSON.readTree(body);
    }
  }

  private final TestServer sextant;
  private final String authorization;

  /** {@code authorization} is the header value to send, or null for none. */
  public UiTemplateStore(TestServer sextant, String authorization) {
    this.sextant = sextant;
    this.authorization = authorization;
  }

  public Answer list(boolean includingDisabled) throws Exception {
    return send("GET", PATH + (includingDisabled ? "?includingDisabled=true" : ""), null);
  }

  public Answer get(String id) throws Exception {
    return send("GET", PATH + "/" + id, null);
  }

  public Answer create(String id, String configuration) throws Exception {
    return send("POST", PATH, setting(id, configuration));
  }

  public Answer update(String id, String configuration) throws Exception {
    return send("PUT", PATH, setting(id, configuration));
  }

  public Answer disable(String id) throws Exception {
    return send("POST", PATH + "/" + id + "/disable", "");
  }

  public Answer post(String body) throws Exception {
    return send("POST", PATH, body);
  }

  /** The rows of a list answer, as {@code id disabled configuration}. */
  public static List<String> rows(Answer list, String idPrefix) throws Exception {
    List<String> out = new ArrayList<>();
    for (JsonNode row : list.json()) {
      if (row.get("id").asText().startsWith(idPrefix)) {
        out.add(row.get("id").asText() + " " + row.get("disabled").asBoolean() + " "
            + row.get("configuration").asText());
      }
    }
    return out;
  }

  private static String setting(String id, String configuration) throws Exception {
    return JSON.writeValueAsString(Map.of("id", id, "configuration", configuration));
  }

  private Answer send(String method, String path, String body) throws Exception {
    return send(method, path, body, Map.of("content-type", "application/json"));
  }

  /** One request with exactly these headers (and the authorization this store sends). */
  public Answer send(String method, String path, String body, Map<String, String> headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sextant.httpPort + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    headers.forEach(b::header);
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    HttpResponse<String> r = TestServer.HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as("%s %s: %s", method, path, r.body()).isLessThan(500);
    return new Answer(r.statusCode(), r.body());
  }
}
