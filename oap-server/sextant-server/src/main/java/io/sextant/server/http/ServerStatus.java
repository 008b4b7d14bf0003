package io.sextant.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sextant.api.config.ConfigKey;
import io.sextant.api.storage.Retention;
import io.sextant.core.management.CollectorRoster;
import io.sextant.core.query.SkyWalkingTtl;
import io.sextant.server.config.ConfigKeys;
import io.sextant.server.config.SextantConfig;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * SkyWalking's status and debugging endpoints that booster-ui 10.3+'s Settings page reads, in
 * SkyWalking's shapes: {@code /status/cluster/nodes} (every live collector, from the roster they
 * share through storage), {@code /status/config/ttl} (JSON, or SkyWalking's text when asked for
 * {@code text/plain}) and {@code /debugging/config/dump} (the effective configuration, secrets
 * masked).
 */
public final class ServerStatus {
  /** Configuration keys whose values are never shown: SkyWalking's masking keywords and ours. */
  static final List<String> SECRET_WORDS = List.of("password", "token", "secret", "apikey", "accesskey",
      "authentication", "credential", "user");
  static final String MASK = "******";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final CollectorRoster roster;
  private final Supplier<Retention> retention;
  private final SextantConfig config;

  public ServerStatus(CollectorRoster roster, Supplier<Retention> retention, SextantConfig config) {
    this.roster = roster;
    this.retention = retention;
    this.config = config;
  }

  /** {@code {"nodes": [{"host", "port", "self"}]}}: each live collector's receiver address. */
  String clusterNodes() {
    ObjectNode out = JSON.createObjectNode();
    ArrayNode nodes = out.putArray("nodes");
    for (CollectorRoster.Member m : roster.live()) {
      nodes.addObject().put("host", m.host()).put("port", m.grpcPort())
          .put("self", m.collectorId().equals(roster.collectorId()));
    }
    return write(out);
  }

  String ttlJson() {
    Retention r = retention.get();
    ObjectNode out = JSON.createObjectNode();
    out.set("metrics", JSON.valueToTree(SkyWalkingTtl.metrics(r)));
    out.set("records", JSON.valueToTree(SkyWalkingTtl.records(r)));
    return write(out);
  }

  /** SkyWalking's text form of the same: {@code metrics.minute=7}, {@code metrics.minute.cold=-1}, ... */
  String ttlText() {
    Retention r = retention.get();
    StringBuilder out = new StringBuilder("# Days each kind of data is kept; Sextant has no cold stage (-1).\n");
    text(out, "metrics", SkyWalkingTtl.metrics(r));
    text(out, "records", SkyWalkingTtl.records(r));
    return out.toString();
  }

  /** The hot kinds first, then their cold stages, as SkyWalking lists them. */
  private static void text(StringBuilder out, String prefix, Map<String, Integer> ttl) {
    List<String> hot = ttl.keySet().stream().filter(k -> ttl.containsKey(SkyWalkingTtl.cold(k))).toList();
    hot.forEach(k -> out.append(prefix).append('.').append(k).append('=').append(ttl.get(k)).append('\n'));
    hot.forEach(k -> out.append(prefix).append('.').append(k).append(".cold=")
        .append(ttl.get(SkyWalkingTtl.cold(k))).append('\n'));
  }

  /** The effective configuration, key by key, as SkyWalking's dump lists it; secrets masked. */
  String configDump() {
    ObjectNode out = JSON.createObjectNode();
    for (ConfigKey key : ConfigKeys.ALL) {
      out.put(key.path(), isSecret(key.path()) ? MASK : config.string0(key.path()));
    }
    return write(out);
  }

  static boolean isSecret(String path) {
    String name = path.substring(path.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
    return SECRET_WORDS.stream().anyMatch(name::contains);
  }

  private static String write(ObjectNode node) {
    try {
      return JSON.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
