package io.sextant.core.query;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * SkyWalking 10.1's service hierarchy definition as data: the level of each layer (the UI orders
 * layers by it), which upper layer links to which lower layer, and the rule that matches an upper
 * service to a lower one. A new link is one row of {@link #LINKS}; a new rule one constant of
 * {@link MatchRule}.
 */
public final class HierarchyRules {
  /** Layer levels in SkyWalking's order; an upper layer's level is above each of its lower layers'. */
  public static final Map<String, Integer> LEVELS = levels(
      "MESH", 3, "GENERAL", 3, "SO11Y_OAP", 3, "VIRTUAL_DATABASE", 3, "VIRTUAL_MQ", 3,
      "MYSQL", 2, "POSTGRESQL", 2, "APISIX", 2, "NGINX", 2, "ROCKETMQ", 2, "CLICKHOUSE", 2, "RABBITMQ", 2,
      "KAFKA", 2, "PULSAR", 2, "ACTIVEMQ", 2,
      "MESH_DP", 1, "CILIUM_SERVICE", 1,
      "K8S_SERVICE", 0);

  /** Which upper layer links to which lower layer, and by which rule. */
  public static final List<Link> LINKS = links(
      "MESH", "MESH_DP", MatchRule.NAME,
      "MESH", "K8S_SERVICE", MatchRule.SHORT_NAME,
      "MESH_DP", "K8S_SERVICE", MatchRule.SHORT_NAME,
      "GENERAL", "APISIX", MatchRule.LOWER_SHORT_NAME_REMOVE_NS,
      "GENERAL", "K8S_SERVICE", MatchRule.LOWER_SHORT_NAME_REMOVE_NS,
      "MYSQL", "K8S_SERVICE", MatchRule.SHORT_NAME,
      "POSTGRESQL", "K8S_SERVICE", MatchRule.SHORT_NAME,
      "APISIX", "K8S_SERVICE", MatchRule.SHORT_NAME,
      "NGINX", "K8S_SERVICE", MatchRule.SHORT_NAME,
      "SO11Y_OAP", "K8S_SERVICE", MatchRule.SHORT_NAME,
      "ROCKETMQ", "K8S_SERVICE", MatchRule.SHORT_NAME,
      "RABBITMQ", "K8S_SERVICE", MatchRule.SHORT_NAME,
      "KAFKA", "K8S_SERVICE", MatchRule.SHORT_NAME,
      "CLICKHOUSE", "K8S_SERVICE", MatchRule.SHORT_NAME,
      "PULSAR", "K8S_SERVICE", MatchRule.SHORT_NAME,
      "ACTIVEMQ", "K8S_SERVICE", MatchRule.SHORT_NAME,
      "VIRTUAL_DATABASE", "MYSQL", MatchRule.LOWER_SHORT_NAME_WITH_FQDN,
      "VIRTUAL_DATABASE", "POSTGRESQL", MatchRule.LOWER_SHORT_NAME_WITH_FQDN,
      "VIRTUAL_DATABASE", "CLICKHOUSE", MatchRule.LOWER_SHORT_NAME_WITH_FQDN,
      "VIRTUAL_MQ", "ROCKETMQ", MatchRule.LOWER_SHORT_NAME_WITH_FQDN,
      "VIRTUAL_MQ", "RABBITMQ", MatchRule.LOWER_SHORT_NAME_WITH_FQDN,
      "VIRTUAL_MQ", "KAFKA", MatchRule.LOWER_SHORT_NAME_WITH_FQDN,
      "VIRTUAL_MQ", "PULSAR", MatchRule.LOWER_SHORT_NAME_WITH_FQDN,
      "CILIUM_SERVICE", "K8S_SERVICE", MatchRule.SHORT_NAME);

  private HierarchyRules() {}

  /** An upper layer's services link to a lower layer's services that {@code rule} matches. */
  public record Link(String upperLayer, String lowerLayer, MatchRule rule) {}

  /**
   * SkyWalking's auto-matching rules, each as two keys: an upper and a lower service match when
   * both keys are present and equal (so matching is a hash join, not a comparison of every pair).
   */
  public enum MatchRule {
    /** {@code name}: the names are equal. */
    NAME(s -> s.name, s -> s.name),
    /** {@code short-name}: the short names (after {@code group::}) are equal. */
    SHORT_NAME(s -> s.shortName, s -> s.shortName),
    /** {@code lower-short-name-remove-ns}: the lower short name without its last {@code .ns}. */
    LOWER_SHORT_NAME_REMOVE_NS(s -> s.shortName, s -> beforeLast(s.shortName, '.')),
    /** {@code lower-short-name-with-fqdn}: the upper short name without {@code :port} is the lower's FQDN. */
    LOWER_SHORT_NAME_WITH_FQDN(s -> beforeLast(s.shortName, ':'), s -> s.shortName + ".svc.cluster.local");

    private final Function<Names, String> upperKey;
    private final Function<Names, String> lowerKey;

    MatchRule(Function<Names, String> upperKey, Function<Names, String> lowerKey) {
      this.upperKey = upperKey;
      this.lowerKey = lowerKey;
    }

    /** The key an upper service matches by, or null if this rule can match it to nothing. */
    public String upperKey(String serviceName) {
      return upperKey.apply(new Names(serviceName));
    }

    /** The key a lower service matches by, or null if this rule can match it to nothing. */
    public String lowerKey(String serviceName) {
      return lowerKey.apply(new Names(serviceName));
    }
  }

  /** SkyWalking's short name: what follows {@code group::}, or the whole name. */
  public static String shortName(String serviceName) {
    int sep = serviceName.indexOf("::");
    return sep > 0 ? serviceName.substring(sep + 2) : serviceName;
  }

  private static String beforeLast(String s, char c) {
    int i = s.lastIndexOf(c);
    return i > 0 ? s.substring(0, i) : null;
  }

  private static final class Names {
    final String name;
    final String shortName;

    Names(String name) {
      this.name = name;
      this.shortName = shortName(name);
    }
  }

  private static Map<String, Integer> levels(Object... layerThenLevel) {
    Map<String, Integer> out = new LinkedHashMap<>();
    for (int i = 0; i < layerThenLevel.length; i += 2) {
      out.put((String) layerThenLevel[i], (Integer) layerThenLevel[i + 1]);
    }
    return java.util.Collections.unmodifiableMap(out);
  }

  private static List<Link> links(Object... upperLowerRule) {
    List<Link> out = new ArrayList<>();
    for (int i = 0; i < upperLowerRule.length; i += 3) {
      out.add(new Link((String) upperLowerRule[i], (String) upperLowerRule[i + 1], (MatchRule) upperLowerRule[i + 2]));
    }
    return List.copyOf(out);
  }
}
