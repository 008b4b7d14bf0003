package io.sextant.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.server.HttpService;
import com.linecorp.armeria.server.ServiceRequestContext;
import io.sextant.core.management.DashboardTemplate;
import io.sextant.core.management.TemplateChange;
import io.sextant.core.management.UiTemplates;
import io.sextant.query.graphql.Caller;
import io.sextant.query.graphql.WriteAudit;
import io.sextant.server.security.HttpAuthentication;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * SkyWalking 11's template store ({@code /ui-management/templates}, its admin REST), which Horizon,
 * SkyWalking 11's UI, reads every dashboard from and seeds at its start:
 *
 * <ul>
 *   <li>{@code GET /ui-management/templates[?includingDisabled=true]}: {@code [{id, configuration,
 *       disabled}]};
 *   <li>{@code GET /ui-management/templates/{id}}: the row, 404 when absent or disabled;
 *   <li>{@code POST /ui-management/templates} {@code {id, configuration}}: a new row, {@code PUT} the
 *       same to replace one (and enable it), {@code POST /ui-management/templates/{id}/disable} to hide
 *       one: each answers {@code {id, status, message}}, 200 when done, 409 when refused; 400 {@code
 *       {error: "missing_id" | "missing_configuration"}} for a body without them.
 * </ul>
 *
 * The configuration is kept byte for byte (Horizon polls until the row equals what it wrote), in the
 * management store every collector shares. Until Sextant's shipped templates are in, every request
 * is answered 503: Horizon waits for the store to answer before it seeds, so its rows never take the
 * place of Sextant's. Reads need what GraphQL reads need; writes the editor
 * role and a JSON body not sent cross-site by a browser, and each is audited as a GraphQL mutation is.
 */
final class UiManagementService implements HttpService {
  static final String PATH = "/ui-management/templates";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String DISABLE = "/disable";

  private final UiTemplates templates;
  private final CompletableFuture<Void> shippedTemplates;
  private final HttpAuthentication authentication;
  private final WriteAudit audit;

  UiManagementService(UiTemplates templates, CompletableFuture<Void> shippedTemplates,
      HttpAuthentication authentication, WriteAudit audit) {
    this.templates = templates;
    this.shippedTemplates = shippedTemplates;
    this.authentication = authentication;
    this.audit = audit;
  }

  @Override
  public HttpResponse serve(ServiceRequestContext ctx, HttpRequest req) {
    HttpAuthentication.Outcome who = authentication.authenticate(req.headers().get(HttpHeaderNames.AUTHORIZATION));
    if (who.caller() == null) {
      return HttpResponse.of(HttpStatus.UNAUTHORIZED, MediaType.PLAIN_TEXT_UTF_8, who.message());
    }
    if (!shippedTemplates.isDone()) {
      return HttpResponse.of(HttpStatus.SERVICE_UNAVAILABLE, MediaType.PLAIN_TEXT_UTF_8,
          "the template store is starting: Sextant's own templates are not in yet (storage slow or away)");
    }
    Caller caller = who.caller();
    String rest = ctx.decodedPath().substring(PATH.length());
    HttpMethod method = req.method();
    if (method == HttpMethod.GET && rest.isEmpty()) {
      boolean all = "true".equalsIgnoreCase(ctx.queryParam("includingDisabled"));
      return offLoop(ctx, () -> json(HttpStatus.OK, list(all)));
    }
    if (method == HttpMethod.GET && rest.startsWith("/") && !rest.endsWith(DISABLE)) {
      String id = rest.substring(1);
      return offLoop(ctx, () -> templates.get(id).map(t -> json(HttpStatus.OK, row(t)))
          .orElseGet(() -> HttpResponse.of(HttpStatus.NOT_FOUND, MediaType.PLAIN_TEXT_UTF_8, "no template " + id)));
    }
    String operation = method == HttpMethod.POST && rest.isEmpty() ? "createTemplate"
        : method == HttpMethod.PUT && rest.isEmpty() ? "updateTemplate"
        : method == HttpMethod.POST && rest.startsWith("/") && rest.endsWith(DISABLE) ? "disableTemplate"
        : null;
    if (operation == null) {
      return HttpResponse.of(HttpStatus.METHOD_NOT_ALLOWED, MediaType.PLAIN_TEXT_UTF_8,
          method + " " + ctx.decodedPath() + " is not part of the template store");
    }
    // Cross-site request forgery, as for GraphQL: a browser's cross-site write is refused, and a body
    // must be JSON, which a browser sends to another site only after asking (never granted).
    String crossSite = GraphqlHttpService.crossSite(req.headers());
    if (crossSite != null) {
      return HttpResponse.of(HttpStatus.FORBIDDEN, MediaType.PLAIN_TEXT_UTF_8,
          "a browser sent this write from another site (" + crossSite + ")");
    }
    if (!operation.equals("disableTemplate") && !GraphqlHttpService.json(req.contentType())) {
      return HttpResponse.of(HttpStatus.UNSUPPORTED_MEDIA_TYPE, MediaType.PLAIN_TEXT_UTF_8,
          operation + " takes Content-Type: application/json");
    }
    if (!caller.role().mayWrite()) {
      audit.refused(caller, "ui-management " + operation, "the caller may only read");
      return HttpResponse.of(HttpStatus.FORBIDDEN, MediaType.PLAIN_TEXT_UTF_8,
          operation + " changes the template store: it needs the editor role");
    }
    if (operation.equals("disableTemplate")) {
      String id = rest.substring(1, rest.length() - DISABLE.length());
      return offLoop(ctx, () -> answer(caller, operation, templates.disable(id)));
    }
    return HttpResponse.of(req.aggregate().thenApplyAsync(
        body -> guarded(() -> write(caller, operation, body.contentUtf8())), ctx.blockingTaskExecutor()));
  }

  private HttpResponse write(Caller caller, String operation, String body) {
    JsonNode setting;
    try {
      setting = JSON.readTree(body);
    } catch (JsonProcessingException e) {
      return error("invalid_json");
    }
    String id = text(setting, "id");
    String configuration = text(setting, "configuration");
    if (id == null || id.isBlank()) {
      return error("missing_id");
    }
    if (configuration == null || configuration.isBlank()) {
      return error("missing_configuration");
    }
    TemplateChange change = operation.equals("createTemplate") ? templates.create(id, configuration)
        : templates.update(id, configuration);
    return answer(caller, operation, change);
  }

  private HttpResponse answer(Caller caller, String operation, TemplateChange change) {
    audit.ran(caller, "ui-management " + operation, "id=" + change.id(), change.status() ? "done" : "declined",
        change.message() == null ? "" : change.message());
    ObjectNode o = JSON.createObjectNode().put("id", change.id()).put("status", change.status())
        .put("message", change.message());
    return json(change.status() ? HttpStatus.OK : HttpStatus.CONFLICT, o);
  }

  private ArrayNode list(boolean includingDisabled) {
    ArrayNode rows = JSON.createArrayNode();
    for (DashboardTemplate t : templates.list(includingDisabled)) {
      rows.add(row(t));
    }
    return rows;
  }

  private static ObjectNode row(DashboardTemplate t) {
    return JSON.createObjectNode().put("id", t.id()).put("configuration", t.configuration())
        .put("disabled", t.disabled());
  }

  private static String text(JsonNode o, String field) {
    JsonNode v = o == null ? null : o.get(field);
    return v == null || !v.isTextual() ? null : v.asText();
  }

  private static HttpResponse error(String code) {
    return json(HttpStatus.BAD_REQUEST, JSON.createObjectNode().put("error", code));
  }

  private static HttpResponse json(HttpStatus status, JsonNode body) {
    return HttpResponse.of(status, MediaType.JSON_UTF_8, body.toString());
  }

  /** Storage is read and written off the event loop. */
  private static HttpResponse offLoop(ServiceRequestContext ctx, Supplier<HttpResponse> answer) {
    return HttpResponse.of(CompletableFuture.supplyAsync(() -> guarded(answer), ctx.blockingTaskExecutor()));
  }

  /** When storage is away the answer says so. */
  private static HttpResponse guarded(Supplier<HttpResponse> answer) {
    try {
      return answer.get();
    } catch (RuntimeException e) {
      return HttpResponse.of(HttpStatus.SERVICE_UNAVAILABLE, MediaType.PLAIN_TEXT_UTF_8,
          "the template store cannot answer now: " + e.getMessage());
    }
  }
}
