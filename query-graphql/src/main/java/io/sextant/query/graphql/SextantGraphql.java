package io.sextant.query.graphql;

import graphql.GraphQL;
import graphql.execution.ExecutionStrategy;
import graphql.language.FieldDefinition;
import graphql.language.ObjectTypeDefinition;
import graphql.language.ObjectTypeExtensionDefinition;
import graphql.schema.DataFetcher;
import graphql.schema.GraphQLSchema;
import graphql.schema.idl.RuntimeWiring;
import graphql.schema.idl.SchemaGenerator;
import graphql.schema.idl.SchemaParser;
import graphql.schema.idl.TypeDefinitionRegistry;
import io.sextant.api.component.CheckResult;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.alarm.AlarmQueries;
import io.sextant.core.query.QueryServices;
import io.sextant.query.graphql.area.AlarmArea;
import io.sextant.query.graphql.area.CommonArea;
import io.sextant.query.graphql.area.ContinuousProfilingArea;
import io.sextant.query.graphql.area.DurationBounds;
import io.sextant.query.graphql.area.EbpfProfilingArea;
import io.sextant.query.graphql.area.EventArea;
import io.sextant.query.graphql.area.HierarchyArea;
import io.sextant.query.graphql.area.LogArea;
import io.sextant.query.graphql.area.MetadataArea;
import io.sextant.query.graphql.area.MetricsArea;
import io.sextant.query.graphql.area.MetricsV1Area;
import io.sextant.query.graphql.area.MetricsV2Area;
import io.sextant.query.graphql.area.ProcessArea;
import io.sextant.query.graphql.area.RecordsArea;
import io.sextant.query.graphql.area.TopologyArea;
import io.sextant.query.graphql.area.UiConfigurationArea;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * Builds the GraphQL engine over SkyWalking's published query-protocol schema files (unpacked from
 * the {@code query-graphql-plugin} artifact at build time). Operations we do not serve answer an
 * error that names them.
 */
public final class SextantGraphql {
  /** The schema files SkyWalking loads by default ({@code ondemand-pod-log} is opt-in there). */
  static final List<String> SCHEMA_FILES = List.of("common", "metadata", "metadata-v2", "topology", "metric",
      "metrics-v2", "metrics-v3", "aggregation", "top-n-records", "record", "trace", "alarm", "log", "profile",
      "ui-configuration", "browser-log", "event", "ebpf-profiling", "continuous-profiling", "hierarchy");

  /** Sextant's own additions, after SkyWalking's files: fields of newer SkyWalking releases, alarm rules. */
  static final List<String> EXTENSION_FILES = List.of("skywalking-10.4", "trace-10.4", "log-10.4",
      "async-profiler", "alarm");

  private SextantGraphql() {}

  /**
   * The areas Sextant serves today over the given read services; alarms come from the alarm side's
   * own {@code alarms} (not a part of {@link QueryServices}, which {@code core.alarm} builds on).
   * {@code expressions} runs the expressions of a request that asks for several ({@code
   * execExpression} fields, as the UI batches a dashboard's widgets; v2 metric reads likewise) at
   * once; {@code Runnable::run} answers each on the calling thread.
   */
  public static List<SchemaArea> standardAreas(QueryServices query, AlarmQueries alarms, QueryLimits limits,
      String version, Supplier<CheckResult> health, ZoneId zone, Clock clock, Executor expressions) {
    return List.of(
        new CommonArea(version, health, zone, clock),
        new MetadataArea(query.metadata(), limits),
        new TopologyArea(query.topology(), limits),
        new MetricsArea(query.metrics(), limits, expressions, new TimeBuckets(zone, clock)),
        new EventArea(query.events(), new DurationBounds(zone)),
        new AlarmArea(alarms, query.events(), new DurationBounds(zone)),
        new LogArea(query.logs(), new DurationBounds(zone)),
        new MetricsV2Area(query.metrics(), limits, expressions),
        new MetricsV1Area(query.metrics(), limits),
        new RecordsArea(query.records(), limits, zone),
        new HierarchyArea(query.hierarchy()),
        new EbpfProfilingArea(query.profiling(), limits, zone),
        new UiConfigurationArea(query.templates(), query.menu()),
        new ContinuousProfilingArea(query.continuousProfiling()),
        new ProcessArea(query.processes(), limits, new TimeBuckets(zone, clock)));
  }

  /** Documents kept parsed and validated when the caller names no bound. */
  static final int DEFAULT_CACHED_DOCUMENTS = 500;

  /** The engine over the given areas; fields no area wires answer "not supported". */
  public static GraphQL build(List<SchemaArea> areas, QueryLimits limits) {
    return build(areas, limits, DEFAULT_CACHED_DOCUMENTS);
  }

  /** As above, keeping up to {@code cachedDocuments} query texts parsed and validated (0: none). */
  public static GraphQL build(List<SchemaArea> areas, QueryLimits limits, int cachedDocuments) {
    return build(areas, limits, new FlatListExecutionStrategy(), cachedDocuments, WriteAudit.NONE);
  }

  /**
   * As above, every mutation field guarded ({@link GuardedWrite}: only a {@link Caller} with the
   * editor role in the request's context may write) and reported to {@code audit}.
   */
  public static GraphQL build(List<SchemaArea> areas, QueryLimits limits, int cachedDocuments, WriteAudit audit) {
    return build(areas, limits, new FlatListExecutionStrategy(), cachedDocuments, audit);
  }

  /** As above with the given query strategy (tests compare ours against graphql-java's). */
  static GraphQL build(List<SchemaArea> areas, QueryLimits limits, ExecutionStrategy strategy) {
    return build(areas, limits, strategy, DEFAULT_CACHED_DOCUMENTS, WriteAudit.NONE);
  }

  private static GraphQL build(List<SchemaArea> areas, QueryLimits limits, ExecutionStrategy strategy,
      int cachedDocuments, WriteAudit audit) {
    TypeDefinitionRegistry types = new TypeDefinitionRegistry();
    RuntimeWiring.Builder wiring = RuntimeWiring.newRuntimeWiring().scalar(LongScalar.LONG);
    areas.forEach(area -> area.wire(wiring));
    RuntimeWiring partial = wiring.build();
    List<String> files = new ArrayList<>();
    SCHEMA_FILES.forEach(f -> files.add("query-protocol/" + f));
    EXTENSION_FILES.forEach(f -> files.add("schema-extensions/" + f));
    for (String path : files) {
      String file = path.substring(path.indexOf('/') + 1);
      TypeDefinitionRegistry fileTypes = parse(path);
      if (path.startsWith("schema-extensions/")) {
        dropRedefinedRootFields(types, fileTypes);
      }
      types.merge(fileTypes);
      for (String root : List.of("Query", "Mutation")) {
        Set<String> wired = partial.getDataFetchers().getOrDefault(root, Map.of()).keySet();
        for (String field : rootFields(fileTypes, root)) {
          if (!wired.contains(field)) {
            String message = Refusals.message(field, file);
            wiring.type(root, t -> t.dataFetcher(field, env -> Fetchers.error(env, message)));
          }
        }
      }
    }
    Map<String, DataFetcher> writes = wiring.build().getDataFetchers().getOrDefault("Mutation", Map.of());
    writes.forEach((field, fetcher) ->
        wiring.type("Mutation", t -> t.dataFetcher(field, new GuardedWrite(field, fetcher, audit))));
    GraphQLSchema schema = new SchemaGenerator().makeExecutableSchema(types, wiring.build());
    GraphQL.Builder graphql = GraphQL.newGraphQL(schema)
        .queryExecutionStrategy(strategy)
        .instrumentation(new QueryLimitsInstrumentation(limits));
    graphql.preparsedDocumentProvider(new ChosenOperation(cachedDocuments > 0 ? new DocumentCache(cachedDocuments)
        : null));
    return graphql.build();
  }

  private static TypeDefinitionRegistry parse(String file) {
    String path = file + ".graphqls";
    try (InputStream in = SextantGraphql.class.getClassLoader().getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("schema file missing from the build: " + path);
      }
      return new SchemaParser().parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A root field an extension declares again (SkyWalking added an argument to it) replaces the
   * earlier declaration: one schema takes what every UI version sends.
   */
  private static void dropRedefinedRootFields(TypeDefinitionRegistry types, TypeDefinitionRegistry extension) {
    for (String root : List.of("Query", "Mutation")) {
      Set<String> redefined = rootFields(extension, root);
      if (redefined.stream().noneMatch(rootFields(types, root)::contains)) {
        continue;
      }
      types.getType(root, ObjectTypeDefinition.class).ifPresent(t -> {
        types.remove(t);
        types.add(t.transform(b -> b.fieldDefinitions(without(t.getFieldDefinitions(), redefined))));
      });
      for (ObjectTypeExtensionDefinition ext
          : List.copyOf(types.objectTypeExtensions().getOrDefault(root, new ArrayList<>()))) {
        types.remove(ext);
        types.add(ext.transformExtension(b -> b.fieldDefinitions(without(ext.getFieldDefinitions(), redefined))));
      }
    }
  }

  private static List<FieldDefinition> without(List<FieldDefinition> fields, Set<String> names) {
    return fields.stream().filter(f -> !names.contains(f.getName())).toList();
  }

  static Set<String> rootFields(TypeDefinitionRegistry types, String root) {
    Set<String> fields = new TreeSet<>();
    types.getType(root, ObjectTypeDefinition.class)
        .ifPresent(t -> t.getFieldDefinitions().forEach(f -> fields.add(f.getName())));
    for (ObjectTypeExtensionDefinition ext : types.objectTypeExtensions().getOrDefault(root, new ArrayList<>())) {
      for (FieldDefinition f : ext.getFieldDefinitions()) {
        fields.add(f.getName());
      }
    }
    return fields;
  }
}
