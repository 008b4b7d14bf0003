package io.sextant.receiver.envoy.als;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** What Envoy's response flags mean (Envoy's access-log documentation), for a person reading a log. */
final class ResponseFlagMeanings {
  private static final Map<String, String> MEANINGS = Map.ofEntries(
      Map.entry("LH", "local service failed its health check"),
      Map.entry("UH", "no healthy upstream host"),
      Map.entry("UT", "upstream request timeout"),
      Map.entry("LR", "connection local reset"),
      Map.entry("UR", "upstream remote reset"),
      Map.entry("UF", "upstream connection failure"),
      Map.entry("UC", "upstream connection termination"),
      Map.entry("UO", "upstream overflow (circuit breaker)"),
      Map.entry("NR", "no route configured"),
      Map.entry("DI", "request delayed by fault injection"),
      Map.entry("FI", "request aborted by fault injection"),
      Map.entry("RL", "rate limited locally"),
      Map.entry("UAEX", "denied by the external authorization service"),
      Map.entry("RLSE", "rate limit service error"),
      Map.entry("DC", "downstream connection termination"),
      Map.entry("URX", "upstream retry or connect attempt limit exceeded"),
      Map.entry("SI", "stream idle timeout"),
      Map.entry("IH", "invalid value in an Envoy-checked request header"),
      Map.entry("DPE", "downstream protocol error"),
      Map.entry("UMSDR", "upstream max stream duration reached"),
      Map.entry("NFCF", "no filter config found"),
      Map.entry("DT", "request or connection duration exceeded its limit"),
      Map.entry("UPE", "upstream protocol error"),
      Map.entry("NC", "upstream cluster not found"),
      Map.entry("OM", "overload manager terminated the request"),
      Map.entry("DF", "DNS resolution failure"),
      Map.entry("DR", "downstream remote reset"));

  private ResponseFlagMeanings() {}

  /** The meaning of each flag of {@code flags} ({@code UF,URX}); an unknown flag is given as it is. */
  static List<String> of(String flags) {
    List<String> out = new ArrayList<>();
    for (String f : flags.split(",")) {
      out.add(f + ": " + MEANINGS.getOrDefault(f, "unknown flag"));
    }
    return out;
  }
}
