package io.sextant.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.linecorp.armeria.common.AggregatedHttpResponse;
import com.linecorp.armeria.common.HttpData;
import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.RequestHeaders;
import com.linecorp.armeria.server.ServiceRequestContext;
import graphql.GraphQL;
import graphql.schema.idl.RuntimeWiring;
import graphql.schema.idl.SchemaGenerator;
import graphql.schema.idl.SchemaParser;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.server.config.SecurityConfig;
import io.sextant.server.config.SextantConfig;
import io.sextant.server.security.Security;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What /graphql answers before a query runs: here, the challenge of a 401. */
class GraphqlHttpServiceTest {
  @Test
  void browsersAreAskedForAPasswordOnlyWhenTheLoginIsTurnedOn() {
    assertThat(challenges(false)).containsExactly("Bearer realm=\"sextant\"");
    assertThat(challenges(true)).containsExactly("Basic realm=\"sextant\", charset=\"UTF-8\"",
        "Bearer realm=\"sextant\"");
  }

  private static List<String> challenges(boolean browserLogin) {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Security security = new Security(SecurityConfig.load(SextantConfig.defaults().with(Map.of("auth.anonymous", "none",
        "auth.browserLogin", String.valueOf(browserLogin)))), registry);
    GraphQL graphql = GraphQL.newGraphQL(new SchemaGenerator().makeExecutableSchema(
        new SchemaParser().parse("type Query { version: String }"), RuntimeWiring.newRuntimeWiring().build())).build();
    ThreadPoolExecutor queries = new ThreadPoolExecutor(1, 1, 1, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1));
    try {
      GraphqlHttpService service = new GraphqlHttpService(new GraphqlExchange(graphql), Duration.ofSeconds(5),
          registry, security.http(), security.browserLogin(), queries);
      HttpRequest req = HttpRequest.of(RequestHeaders.of(HttpMethod.POST, "/graphql", HttpHeaderNames.CONTENT_TYPE,
          MediaType.JSON_UTF_8), HttpData.ofUtf8("{\"query\": \"{ version }\"}"));
      AggregatedHttpResponse r = service.serve(ServiceRequestContext.of(req), req).aggregate().join();
      assertThat(r.status()).isEqualTo(HttpStatus.UNAUTHORIZED);
      return r.headers().getAll(HttpHeaderNames.WWW_AUTHENTICATE);
    } finally {
      queries.shutdownNow();
    }
  }
}
