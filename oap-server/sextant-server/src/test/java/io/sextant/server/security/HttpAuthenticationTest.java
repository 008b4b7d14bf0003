package io.sextant.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import at.favre.lib.crypto.bcrypt.BCrypt;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.query.graphql.Caller.Role;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Credentials to callers, without a server: roles, refusals, failing closed, the users file's errors. */
class HttpAuthenticationTest {
  private static final String ALICE = "users:\n  - {name: alice, role: editor, password: \""
      + BCrypt.withDefaults().hashToString(4, "pw".toCharArray()) + "\"}\n";

  @Test
  void anonymousCallersReadUntilSomeoneIsConfiguredAndAUsersFileEmptiedLaterStaysClosed() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    assertThat(auth(HttpUsers.NONE, "auto", false, registry).authenticate(null).caller().role())
        .isEqualTo(Role.VIEWER);
    assertThat(auth(HttpUsers.NONE, "auto", true, registry).authenticate(null).reason())
        .as("a users file that became empty").isEqualTo("missing_credentials");
    HttpUsers tokenOnly = HttpUsers.NONE.withTokens(Tokens.parse("t", "auth.editorTokens"), Tokens.NONE);
    assertThat(auth(tokenOnly, "auto", false, registry).authenticate(null).reason())
        .isEqualTo("missing_credentials");
    assertThat(auth(HttpUsers.NONE, "none", false, registry).authenticate(null).caller()).isNull();
    assertThat(auth(HttpUsers.NONE, "editor", false, registry).authenticate(null).caller().role())
        .isEqualTo(Role.EDITOR);
  }

  @Test
  void aVerifiedPasswordIsRememberedUntilTheUsersChange() {
    AtomicReference<HttpUsers> users = new AtomicReference<>(HttpUsers.parse(ALICE.getBytes(StandardCharsets.UTF_8),
        "users.yaml"));
    HttpAuthentication auth = new HttpAuthentication(users::get, "auto", true, new SimpleMeterRegistry());
    String basic = "Basic " + Base64.getEncoder().encodeToString("alice:pw".getBytes(StandardCharsets.UTF_8));
    assertThat(auth.authenticate(basic).caller().name()).isEqualTo("alice");
    assertThat(auth.authenticate(basic).caller().role()).isEqualTo(Role.EDITOR);
    users.set(HttpUsers.parse("users: []".getBytes(StandardCharsets.UTF_8), "users.yaml"));
    assertThat(auth.authenticate(basic).reason()).as("alice removed").isEqualTo("wrong_password");
    assertThat(auth.authenticate("Basic not-base64!").reason()).isEqualTo("malformed");
    assertThat(auth.authenticate("Digest x").reason()).isEqualTo("unsupported_scheme");
  }

  @Test
  void aTokenCallerIsNamedByItsEntryInTheUsersFileOrItsSetting() throws Exception {
    String digest = java.util.HexFormat.of().formatHex(Tokens.sha256("ci-secret"));
    HttpUsers users = HttpUsers.parse(("tokens:\n  - {name: ci, role: editor, sha256: \"" + digest + "\"}\n"
        + "  - {role: viewer, sha256: \"" + java.util.HexFormat.of().formatHex(Tokens.sha256("anon")) + "\"}\n")
        .getBytes(StandardCharsets.UTF_8), "users.yaml")
        .withTokens(Tokens.NONE, Tokens.parse("v1,v2", "auth.viewerTokens"));
    HttpAuthentication auth = auth(users, "auto", true, new SimpleMeterRegistry());
    assertThat(auth.authenticate("Bearer ci-secret").caller()).isEqualTo(new io.sextant.query.graphql.Caller(
        "token:ci", Role.EDITOR));
    assertThat(auth.authenticate("anon").caller().name()).as("an entry without a name").isEqualTo("token:tokens[2]");
    assertThat(auth.authenticate("Bearer v2").caller().name()).isEqualTo("token:auth.viewerTokens[2]");
  }

  @Test
  void aUsersFileWithAMistakeIsRefusedNamingTheEntryNeverEchoingASecret() {
    for (String[] bad : List.of(
        new String[] {"users:\n  - {name: bob, role: editor, password: plain-text}\n",
            "bob: password must be a bcrypt"},
        new String[] {"users:\n  - {name: bob, role: admin, password: \"" + BCrypt.withDefaults().hashToString(4,
            "x".toCharArray()) + "\"}\n", "role must be viewer or editor, not admin"},
        new String[] {"tokens:\n  - {name: ci, role: viewer, sha256: abc}\n", "token ci: sha256 must be 64 hex"},
        new String[] {"users: 3\n", "'users' must be a list"})) {
      assertThatThrownBy(() -> HttpUsers.parse(bad[0].getBytes(StandardCharsets.UTF_8), "users.yaml"))
          .hasMessageContaining("users.yaml").hasMessageContaining(bad[1]).hasMessageNotContaining("plain-text");
    }
  }

  private static HttpAuthentication auth(HttpUsers users, String anonymous, boolean file,
      SimpleMeterRegistry registry) {
    return new HttpAuthentication(() -> users, anonymous, file, registry);
  }
}
