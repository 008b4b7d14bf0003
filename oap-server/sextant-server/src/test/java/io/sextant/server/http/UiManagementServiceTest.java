package io.sextant.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.linecorp.armeria.common.AggregatedHttpResponse;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.server.ServiceRequestContext;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.core.management.UiTemplates;
import io.sextant.query.graphql.WriteAudit;
import io.sextant.server.config.SecurityConfig;
import io.sextant.server.config.SextantConfig;
import io.sextant.server.security.Security;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The template store before Sextant's own templates are in. */
class UiManagementServiceTest {
  @Test
  void untilTheShippedTemplatesAreInTheStoreAnswersUnavailableSoHorizonWaitsToSeed() {
    Security security = new Security(SecurityConfig.load(SextantConfig.defaults().with(Map.of("auth.anonymous",
        "editor"))), new SimpleMeterRegistry());
    UiTemplates templates = new UiTemplates(() -> {
      throw new AssertionError("storage is not read before the shipped templates are in");
    }, List::of);
    CompletableFuture<Void> installed = new CompletableFuture<>();
    UiManagementService store = new UiManagementService(templates, installed, security.http(), WriteAudit.NONE);

    HttpRequest list = HttpRequest.of(HttpMethod.GET, UiManagementService.PATH + "?includingDisabled=true");
    AggregatedHttpResponse r = store.serve(ServiceRequestContext.of(list), list).aggregate().join();

    assertThat(r.status()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
    assertThat(r.contentUtf8()).contains("Sextant's own templates are not in yet");
  }
}
