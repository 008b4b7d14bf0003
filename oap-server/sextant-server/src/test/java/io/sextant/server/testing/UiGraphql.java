package io.sextant.server.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

/** booster-ui's own ui-configuration requests (its query text, with variables), over real HTTP. */
public final class UiGraphql {
  private static final ObjectMapper JSON = new ObjectMapper();

  public static final String MENU = """
      query queryMenuItems { getMenuItems { title icon layer activate description documentLink i18nKey
        subItems { title icon layer activate description documentLink i18nKey } } }""";
  public static final String ALL = "query queryData { getAllTemplates { id, configuration, } }";
  public static final String ONE = "query getTemplate($id: String!) { getTemplate(id: $id) { id configuration } }";
  public static final String ADD = """
      mutation addNewTemplate($setting: NewDashboardSetting!) {
        addTemplate(setting: $setting) { id status message } }""";
  public static final String CHANGE = """
      mutation updateTemplate($setting: DashboardSetting!) {
        changeTemplate(setting: $setting) { id status message } }""";
  public static final String DISABLE = """
      mutation removeTemplate($id: String!) { disableTemplate(id: $id) { id status message } }""";

  private UiGraphql() {}

  /** POSTs a query with variables; returns the whole answer ({@code data}, {@code errors}). */
  public static JsonNode post(TestServer server, String query, Map<String, Object> variables) throws Exception {
    HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort + "/graphql"))
        .header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(Map.of("query", query,
            "variables", variables))))
        .build();
    return JSON.readTree(TestServer.HTTP.send(req, HttpResponse.BodyHandlers.ofString()).body());
  }

  /** The {@code data} of a request that must not fail. */
  public static JsonNode data(TestServer server, String query, Map<String, Object> variables) throws Exception {
    JsonNode r = post(server, query, variables);
    if (r.has("errors") && !r.get("errors").isEmpty()) {
      throw new AssertionError("GraphQL errors: " + r.get("errors") + " for " + query);
    }
    return r.get("data");
  }

  public static JsonNode add(TestServer server, String configuration) throws Exception {
    return data(server, ADD, Map.of("setting", Map.of("configuration", configuration))).get("addTemplate");
  }

  public static JsonNode change(TestServer server, String id, String configuration) throws Exception {
    return data(server, CHANGE, Map.of("setting", Map.of("id", id, "configuration", configuration)))
        .get("changeTemplate");
  }

  public static JsonNode disable(TestServer server, String id) throws Exception {
    return data(server, DISABLE, Map.of("id", id)).get("disableTemplate");
  }

  public static JsonNode template(TestServer server, String id) throws Exception {
    return data(server, ONE, Map.of("id", id)).get("getTemplate");
  }

  public static JsonNode all(TestServer server) throws Exception {
    return data(server, ALL, Map.of()).get("getAllTemplates");
  }
}
