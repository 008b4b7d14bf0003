package io.sextant.server.testing;

import io.sextant.testkit.elasticsearch.ElasticsearchExtension;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts a {@link TestServer} for a test class ({@link #perClass}) or for each test ({@link
 * #perTest}), on the embedded store or on the test kit's Elasticsearch, and closes it after. Register
 * it as a static field with {@code @RegisterExtension}, after the {@link ElasticsearchExtension} it
 * uses; read the server with {@link #server()}.
 */
public final class SextantExtension
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
  private final boolean perTest;
  private final Callable<Map<String, String>> settings;
  private TestServer server;

  private SextantExtension(boolean perTest, Callable<Map<String, String>> settings) {
    this.perTest = perTest;
    this.settings = settings;
  }

  /** One server for all tests of the class, on the embedded store. */
  public static SextantExtension perClass(Map<String, String> overrides) {
    return new SextantExtension(false, () -> overrides);
  }

  /**
   * One server for all tests of the class, on the embedded store, with settings made as it starts: after
   * the class's static {@code @TempDir} is set and before its {@code @BeforeAll} methods, for settings
   * that name files (certificates, users, tokens) the test writes first.
   */
  public static SextantExtension perClass(Callable<Map<String, String>> settings) {
    return new SextantExtension(false, settings);
  }

  /** A fresh server for each test, on the embedded store. */
  public static SextantExtension perTest(Map<String, String> overrides) {
    return new SextantExtension(true, () -> overrides);
  }

  /** One server for all tests of the class, on the test kit's Elasticsearch {@code es}. */
  public static SextantExtension perClass(ElasticsearchExtension es, Map<String, String> overrides) {
    return new SextantExtension(false, () -> {
      Map<String, String> all = new HashMap<>(Map.of("storage.selector", "elasticsearch",
          "storage.elasticsearch.hosts", es.hostAndPort()));
      all.putAll(overrides);
      return all;
    });
  }

  /** The running server. */
  public TestServer server() {
    if (server == null) {
      throw new IllegalStateException("no server: register the extension as a static @RegisterExtension field");
    }
    return server;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    if (!perTest) {
      server = new TestServer(settings.call());
    }
  }

  @Override
  public void beforeEach(ExtensionContext context) throws Exception {
    if (perTest) {
      server = new TestServer(settings.call());
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    if (perTest) {
      close();
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (!perTest) {
      close();
    }
  }

  private void close() {
    if (server != null) {
      server.close();
      server = null;
    }
  }
}
