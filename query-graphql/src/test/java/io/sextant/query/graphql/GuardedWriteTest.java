package io.sextant.query.graphql;

import static org.assertj.core.api.Assertions.assertThat;

import graphql.GraphQL;
import graphql.execution.DataFetcherResult;
import graphql.execution.ExecutionStepInfo;
import graphql.execution.MergedField;
import graphql.execution.ResultPath;
import graphql.language.Field;
import graphql.schema.DataFetcher;
import graphql.schema.DataFetchingEnvironment;
import graphql.schema.DataFetchingEnvironmentImpl;
import graphql.schema.FieldCoordinates;
import graphql.schema.GraphQLFieldDefinition;
import graphql.schema.GraphQLSchema;
import io.sextant.api.component.CheckResult;
import io.sextant.core.alarm.AlarmQueries;
import io.sextant.core.metric.MetricFamilies;
import io.sextant.core.query.QueryServices;
import io.sextant.storage.memory.MemoryStorage;
import io.sextant.storage.memory.MemoryStorageConfig;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every mutation the schema has, served or not, today's and any added later, refuses a caller
 * without the editor role before it runs, and reports the refusal.
 */
class GuardedWriteTest {
  private static final QueryLimits LIMITS = new QueryLimits(15, 5000, 10_000);

  @Test
  void everyMutationFieldRefusesViewersAndAnonymousCallersBeforeItRuns() throws Exception {
    List<String> refused = new ArrayList<>();
    WriteAudit audit = new WriteAudit() {
      @Override
      public void ran(Caller caller, String operation, String target, String outcome, String detail) {
        throw new AssertionError(operation + " ran for " + caller);
      }

      @Override
      public void refused(Caller caller, String operation, String reason) {
        refused.add(operation);
      }
    };
    MemoryStorage storage = new MemoryStorage(new MemoryStorageConfig(1000));
    QueryServices query = QueryServices.over(storage, MetricFamilies.catalog(100));
    Clock clock = Clock.fixed(Instant.parse("2026-11-26T10:00:00Z"), ZoneOffset.UTC);
    GraphQL engine = SextantGraphql.build(SextantGraphql.standardAreas(query, new AlarmQueries(() -> storage), LIMITS,
        "test", () -> CheckResult.OK, ZoneOffset.UTC, clock, Runnable::run), LIMITS, 0, audit);
    GraphQLSchema schema = engine.getGraphQLSchema();
    List<GraphQLFieldDefinition> mutations = schema.getMutationType().getFieldDefinitions();
    assertThat(mutations).extracting(GraphQLFieldDefinition::getName)
        .contains("addTemplate", "changeTemplate", "disableTemplate", "createEBPFProfilingFixedTimeTask",
            "createEBPFNetworkProfiling", "keepEBPFNetworkProfiling", "setContinuousProfilingPolicy");
    for (Caller caller : List.of(Caller.anonymous(Caller.Role.VIEWER), new Caller("bob", Caller.Role.VIEWER))) {
      for (GraphQLFieldDefinition field : mutations) {
        DataFetcher<?> fetcher = schema.getCodeRegistry()
            .getDataFetcher(FieldCoordinates.coordinates("Mutation", field.getName()), field);
        DataFetchingEnvironment env = DataFetchingEnvironmentImpl.newDataFetchingEnvironment()
            .graphQLContext(graphql.GraphQLContext.of(Map.of(Caller.KEY, caller))).arguments(Map.of())
            .mergedField(MergedField.newMergedField(new Field(field.getName())).build())
            .executionStepInfo(ExecutionStepInfo.newExecutionStepInfo().type(field.getType())
                .path(ResultPath.rootPath().segment(field.getName())).build())
            .build();
        Object answer = fetcher.get(env);
        assertThat(answer).as(field.getName()).isInstanceOf(DataFetcherResult.class);
        assertThat(((DataFetcherResult<?>) answer).getErrors().get(0).getMessage()).as(field.getName())
            .contains(field.getName() + " is a write and needs the editor role").contains(caller.name());
      }
    }
    assertThat(refused).hasSize(2 * mutations.size());
  }

  @Test
  void theTargetNamesTheIdsAmongTheArguments() {
    assertThat(GuardedWrite.target(Map.of("taskId", "t-1"))).isEqualTo("taskId=t-1");
    assertThat(GuardedWrite.target(Map.of("request", Map.of("serviceId", "c2Vydg==.1", "duration", 5))))
        .isEqualTo("serviceId=c2Vydg==.1");
    assertThat(GuardedWrite.target(Map.of("setting", Map.of("configuration", "{...}")))).isEqualTo("-");
  }
}
