package io.sextant.query.graphql;

import static org.assertj.core.api.Assertions.assertThat;

import graphql.ExecutionInput;
import graphql.GraphQL;
import graphql.execution.AsyncExecutionStrategy;
import graphql.schema.GraphQLSchema;
import graphql.schema.idl.RuntimeWiring;
import graphql.schema.idl.SchemaGenerator;
import graphql.schema.idl.SchemaParser;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The shortcut answers exactly what graphql-java's general path answers, data and errors alike,
 * and is taken only where it may be.
 */
class FlatListExecutionStrategyTest {
  private static final String SCHEMA = """
      directive @upper on FIELD
      type Query { items: [Item!]!, maybe: [Item], rows: [Row!]!, owned: [Row!]!, pojos: [Pojo!]! }
      enum Color { RED, GREEN }
      type Item { id: ID!, name: String, count: Int!, color: Color, tags: [String!]!, colors: [Color!], child: Child }
      type Child { id: ID! }
      type Row { key: String!, value: Float, owner: Child }
      type Pojo { key: String! }
      """;

  record Item(String id, String name, Object count, String color, List<String> tags, List<String> colors) {}

  record Pojo(String key) {}

  private List<Item> items = List.of();
  private List<Item> maybe = List.of();
  private final FlatListExecutionStrategy flat = new FlatListExecutionStrategy();
  private final GraphQL fast = engine(flat);
  private final GraphQL general = engine(new AsyncExecutionStrategy());

  private GraphQL engine(graphql.execution.ExecutionStrategy strategy) {
    RuntimeWiring wiring = RuntimeWiring.newRuntimeWiring()
        .type("Query", t -> t.dataFetcher("items", env -> items).dataFetcher("maybe", env -> maybe)
            .dataFetcher("rows", env -> List.of(Map.of("key", "a", "value", 1.5), Map.of("key", "b")))
            .dataFetcher("owned", env -> List.of(Map.of("key", "a"), Map.of("key", "b", "owner", Map.of("id", "o"))))
            .dataFetcher("pojos", env -> List.of(new Pojo("p"))))
        .type("Item", t -> t.dataFetcher("id", Fetchers.field(Item::id)).dataFetcher("name", Fetchers.field(Item::name))
            .dataFetcher("count", Fetchers.field(Item::count)).dataFetcher("color", Fetchers.field(Item::color))
            .dataFetcher("tags", Fetchers.field(Item::tags)).dataFetcher("colors", Fetchers.field(Item::colors))
            .dataFetcher("child", env -> Map.of("id", ((Item) env.getSource()).id() + "/child")))
        .build();
    GraphQLSchema schema = new SchemaGenerator().makeExecutableSchema(new SchemaParser().parse(SCHEMA), wiring);
    return GraphQL.newGraphQL(schema).queryExecutionStrategy(strategy).build();
  }

  private static Item item(String id, Object count) {
    return new Item(id, "name-" + id, count, "GREEN", List.of("x", "y"), List.of("RED", "GREEN"));
  }

  /** Runs the query on both engines, asserts the same answer and returns whether the shortcut ran. */
  private boolean sameAnswer(String query, Map<String, Object> variables) {
    long before = flat.shortcuts.sum();
    Map<String, Object> expected = general.execute(ExecutionInput.newExecutionInput(query).variables(variables))
        .toSpecification();
    Map<String, Object> actual = fast.execute(ExecutionInput.newExecutionInput(query).variables(variables))
        .toSpecification();
    assertThat(actual).isEqualTo(expected);
    return flat.shortcuts.sum() > before;
  }

  private boolean sameAnswer(String query) {
    return sameAnswer(query, Map.of());
  }

  @Test
  void flatFieldsWithAliasesFragmentsAndTypenameTakeTheShortcut() {
    items = List.of(item("1", 3), item("2", 4), new Item("3", null, 5, null, List.of(), null));
    String query = """
        query { items { __typename id label: name ...F ... on Item { colors } tags again: id }
                        alias: items { id } }
        fragment F on Item { count color name }""";
    assertThat(sameAnswer(query)).isTrue();
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> answer = (List<Map<String, Object>>) ((Map<String, Object>) fast.execute(query).getData())
        .get("items");
    assertThat(answer).hasSize(3);
    assertThat(answer.get(0)).containsExactly(Map.entry("__typename", "Item"), Map.entry("id", "1"),
        Map.entry("label", "name-1"), Map.entry("count", 3), Map.entry("color", "GREEN"), Map.entry("name", "name-1"),
        Map.entry("colors", List.of("RED", "GREEN")), Map.entry("tags", List.of("x", "y")), Map.entry("again", "1"));
  }

  @Test
  void mapsReadByTheDefaultFetcherTakeTheShortcutButOtherObjectsDoNot() {
    assertThat(sameAnswer("{ rows { key value } }")).isTrue();
    assertThat(sameAnswer("{ pojos { key } }")).isFalse();
  }

  @Test
  void aNullObjectTakesTheShortcutAndAnyOtherValueTheGeneralPath() {
    // booster-ui 10.2+ selects an owner on every MQE value; a time series' values have none.
    assertThat(sameAnswer("{ rows { key value owner { id } } }")).isTrue();
    assertThat(sameAnswer("{ owned { key owner { id } } }")).isFalse();
  }

  @Test
  void nestedObjectsAndOtherDirectivesTakeTheGeneralPath() {
    items = List.of(item("1", 3));
    assertThat(sameAnswer("{ items { id child { id } } }")).isFalse();
    assertThat(sameAnswer("{ items { id name @upper } }")).isFalse();
  }

  @Test
  void skipAndIncludeAreApplied() {
    items = List.of(item("1", 3));
    String query = "query($on: Boolean!) { items { id name @include(if: $on) count @skip(if: $on) } }";
    assertThat(sameAnswer(query, Map.of("on", false))).isTrue();
    assertThat(sameAnswer(query, Map.of("on", true))).isTrue();
  }

  @Test
  void nullItemsInANullableListStayNull() {
    maybe = Arrays.asList(item("1", 3), null);
    assertThat(sameAnswer("{ maybe { id count } }")).isTrue();
  }

  @Test
  void errorsAreTheGeneralPathsErrors() {
    items = List.of(item("1", 3), item("2", null));                      // null for Int!
    assertThat(sameAnswer("{ items { id count } }")).isFalse();
    items = List.of(item("1", "not a number"));                          // does not coerce
    assertThat(sameAnswer("{ items { count } }")).isFalse();
    items = List.of(new Item("1", "n", 1, "BLUE", List.of(), null));     // not an enum value
    assertThat(sameAnswer("{ items { color } }")).isFalse();
    items = List.of(new Item("1", "n", 1, null, new ArrayList<>(Arrays.asList("x", null)), null)); // null in [String!]
    assertThat(sameAnswer("{ items { tags } }")).isFalse();
    items = Arrays.asList(item("1", 1), null);                           // null in [Item!]!
    assertThat(sameAnswer("{ items { id } }")).isFalse();
  }
}
