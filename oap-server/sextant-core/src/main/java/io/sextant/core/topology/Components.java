package io.sextant.core.topology;

import java.util.Map;

/**
 * The topology components Sextant draws, by SkyWalking's component-libraries.yml names, with the
 * priority SkyWalking gives each (higher is closer to the business code; unlisted ones count 50):
 * a node seen with several server-side components takes the type of the highest.
 */
public final class Components {
  public static final String UNKNOWN = "Unknown";
  public static final String TLS = "tls";
  public static final String MTLS = "mtls";

  private static final int DEFAULT_PRIORITY = 50;
  private static final Map<String, Integer> PRIORITIES = Map.of(
      UNKNOWN, 0,
      "tcp", 10,
      TLS, 11,
      MTLS, 12,
      "rpc", 20,
      "http", 45);

  private Components() {}

  public static int priority(String component) {
    return PRIORITIES.getOrDefault(component, DEFAULT_PRIORITY);
  }

  /** True for the components that say how a connection was secured rather than what it carried. */
  public static boolean isTls(String component) {
    return TLS.equals(component) || MTLS.equals(component);
  }
}
