package io.sextant.server.config;

import static io.sextant.api.config.ConfigKey.integer;
import static io.sextant.api.config.ConfigKey.optionalString;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import io.sextant.query.graphql.QueryLimits;
import java.util.List;

/**
 * The query side's configuration ({@code query.*}): GraphQL limits, threads, the warm-up and the
 * Horizon templates installed at a start ({@code horizonTemplates} is empty when there are none).
 */
public record QueryConfig(QueryLimits limits, int threads, int maxQueuedRequests, int expressionThreads,
    int warmUpSeconds, int maxCachedDocuments, String horizonTemplates) {
  private static final String P = "query.";

  public static final List<ConfigKey> KEYS = List.of(
      integer(P + "maxDepth", 15, 2, 100, "deepest GraphQL selection"),
      integer(P + "maxComplexity", 5000, 10, 1_000_000, "most fields in one GraphQL request"),
      integer(P + "maxDurationPoints", 10080, 10, 1_000_000, "most time points in one queried duration"),
      integer(P + "threads", 0, 0, 256,
          "threads running GraphQL requests (and checking their passwords); 0: the cores, at least 2. Bounded so"
              + " that the event loops, which answer the probes, always get a core"),
      integer(P + "maxQueuedRequests", 256, 0, 100_000,
          "GraphQL requests waiting for a query thread; past them a request is refused 503 (too many queries in"
              + " progress)"),
      integer(P + "expressionThreads", 4, 1, 256,
          "threads running the expressions of one request at once (1: one after another)"),
      integer(P + "warmUpSeconds", 15, 0, 15,
          "after a start, once ready, run the mesh dashboards' queries in-process until their rounds stop getting"
              + " faster, at most this long, so the first person to open the UI meets less of a cold JVM; never"
              + " holds readiness; 0: off"),
      integer(P + "maxCachedDocuments", 500, 0, 100_000,
          "GraphQL query texts (up to 16 KB each) kept parsed and validated; 0: parse every request"),
      optionalString(P + "horizonTemplates",
          "directory of Sextant's Horizon templates (<kind>.<key>.json, e.g. layer.MESH.json for the row"
              + " horizon.layer.MESH), put in the template store at a start before Horizon seeds its own; a row"
              + " changed through the store is kept; empty: the horizon directory next to application.yml, else"
              + " the distribution's config/horizon"));

  public static QueryConfig load(Settings s) {
    return new QueryConfig(new QueryLimits(s.integer(P + "maxDepth"), s.integer(P + "maxComplexity"),
        s.integer(P + "maxDurationPoints")), s.integer(P + "threads"), s.integer(P + "maxQueuedRequests"),
        s.integer(P + "expressionThreads"), s.integer(P + "warmUpSeconds"), s.integer(P + "maxCachedDocuments"),
        s.string(P + "horizonTemplates"));
  }
}
