package io.sextant.query.graphql;

import graphql.GraphQLContext;
import graphql.execution.AsyncExecutionStrategy;
import graphql.execution.ExecutionContext;
import graphql.execution.ExecutionStrategyParameters;
import graphql.execution.FieldCollectorParameters;
import graphql.execution.FieldValueInfo;
import graphql.execution.FieldValueInfo.CompleteValueType;
import graphql.execution.MergedField;
import graphql.language.Field;
import graphql.schema.CoercingSerializeException;
import graphql.schema.DataFetcher;
import graphql.schema.GraphQLEnumType;
import graphql.schema.GraphQLFieldDefinition;
import graphql.schema.GraphQLList;
import graphql.schema.GraphQLObjectType;
import graphql.schema.GraphQLScalarType;
import graphql.schema.GraphQLType;
import graphql.schema.GraphQLTypeUtil;
import graphql.schema.PropertyDataFetcher;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * graphql-java's default strategy with a shortcut for lists of flat objects. When every field a
 * query selects on the list's element type is read straight off the element ({@link
 * Fetchers#field} on our records, or the default property fetcher on a map) and is a scalar, an
 * enum or a list of them (or a nullable object that is null, as the {@code owner} booster-ui 10.2+
 * selects on every MQE value), each element's answer is built in one pass. The general path runs a
 * fetch-and-complete cycle per field and allocates about a kilobyte for each; a 220-service
 * topology answer has about 3,800 fields.
 *
 * <p>Anything else takes the general path, which also reports every error: a field with arguments
 * or with directives other than {@code @skip} and {@code @include} (which the field collector has
 * applied), another fetcher, a nested object that is not null, an interface, a value that does not coerce, or a
 * null where the schema forbids one. The shortcut skips per-field instrumentation callbacks, so it
 * suits only instrumentations that act per operation (ours do).
 */
final class FlatListExecutionStrategy extends AsyncExecutionStrategy {
  /** Lists answered by the shortcut, for tests. */
  final LongAdder shortcuts = new LongAdder();

  @Override
  protected FieldValueInfo completeValueForList(ExecutionContext ctx, ExecutionStrategyParameters params,
      Iterable<Object> values) {
    List<Object> answers = flatAnswers(ctx, params, values);
    if (answers == null) {
      return super.completeValueForList(ctx, params, values);
    }
    shortcuts.increment();
    List<FieldValueInfo> infos = new ArrayList<>(answers.size());
    for (Object answer : answers) {
      infos.add(new FieldValueInfo(CompleteValueType.OBJECT, answer));
    }
    return new FieldValueInfo(CompleteValueType.LIST, answers, infos);
  }

  /** The list's answer, or null when it must take the general path. */
  private List<Object> flatAnswers(ExecutionContext ctx, ExecutionStrategyParameters params, Iterable<Object> values) {
    GraphQLList listType = (GraphQLList) params.getExecutionStepInfo().getUnwrappedNonNullType();
    if (!(GraphQLTypeUtil.unwrapNonNull(listType.getWrappedType()) instanceof GraphQLObjectType type)) {
      return null;
    }
    List<Column> columns = columns(ctx, params.getField(), type);
    if (columns == null) {
      return null;
    }
    boolean itemsNonNull = GraphQLTypeUtil.isNonNull(listType.getWrappedType());
    List<Object> out = new ArrayList<>(values instanceof Collection<?> c ? c.size() : 16);
    Coercion coercion = new Coercion(ctx.getGraphQLContext(), ctx.getLocale());
    for (Object item : values) {
      item = ctx.getValueUnboxer().unbox(item);
      if (item == null) {
        if (itemsNonNull) {
          return null;
        }
        out.add(null);
        continue;
      }
      Map<String, Object> answer = new LinkedHashMap<>(columns.size() * 2);
      for (Column column : columns) {
        Object value = column.value(item, ctx, coercion);
        if (value == INVALID) {
          return null;
        }
        answer.put(column.key, value);
      }
      out.add(answer);
    }
    return out;
  }

  /** How to answer each selected field, in the query's order; null when one needs the general path. */
  private List<Column> columns(ExecutionContext ctx, MergedField listField, GraphQLObjectType type) {
    var selected = fieldCollector.collectFields(FieldCollectorParameters.newParameters()
        .schema(ctx.getGraphQLSchema()).objectType(type).fragments(ctx.getFragmentsByName())
        .variables(ctx.getCoercedVariables().toMap()).graphQLContext(ctx.getGraphQLContext()).build(), listField);
    List<Column> columns = new ArrayList<>();
    for (MergedField field : selected.getSubFieldsList()) {
      for (Field f : field.getFields()) {
        boolean conditionsOnly = f.getDirectives().stream().allMatch(d -> CONDITIONS.contains(d.getName()));
        if (!f.getArguments().isEmpty() || !conditionsOnly) {
          return null;
        }
      }
      if (field.getName().equals("__typename")) {
        columns.add(new Column(field.getResultKey(), null, null, type.getName(), false, false, false, false));
        continue;
      }
      GraphQLFieldDefinition def = type.getFieldDefinition(field.getName());
      if (def == null || !def.getArguments().isEmpty()) {
        return null;
      }
      Function<Object, Object> read = reader(ctx.getGraphQLSchema().getCodeRegistry().getDataFetcher(type, def));
      GraphQLType valueType = GraphQLTypeUtil.unwrapNonNull(def.getType());
      boolean list = valueType instanceof GraphQLList;
      GraphQLType leaf = list ? GraphQLTypeUtil.unwrapNonNull(((GraphQLList) valueType).getWrappedType()) : valueType;
      boolean nonNull = GraphQLTypeUtil.isNonNull(def.getType());
      // A nullable object is answered here only where it is null; any other value takes the general path.
      boolean nullOnly = !list && !nonNull && leaf instanceof GraphQLObjectType;
      if (read == null || !(leaf instanceof GraphQLScalarType || leaf instanceof GraphQLEnumType || nullOnly)) {
        return null;
      }
      columns.add(new Column(field.getResultKey(), read, leaf, null, nonNull, list,
          list && GraphQLTypeUtil.isNonNull(((GraphQLList) valueType).getWrappedType()), nullOnly));
    }
    return columns;
  }

  /** Reads a field off an element without a fetching environment; null for any other fetcher. */
  @SuppressWarnings("unchecked")
  private static Function<Object, Object> reader(DataFetcher<?> fetcher) {
    if (fetcher instanceof Fetchers.SourceField<?> field) {
      return (Function<Object, Object>) field.getter();
    }
    if (fetcher instanceof PropertyDataFetcher<?> property && property.getPropertyName() != null) {
      String name = property.getPropertyName();
      // The default fetcher reads maps by key; other sources need its reflection: general path.
      return source -> source instanceof Map<?, ?> m ? m.get(name) : INVALID;
    }
    return null;
  }

  /** A value the shortcut cannot answer: the whole list takes the general path. */
  private static final Object INVALID = new Object();
  /** Directives the field collector has already applied. */
  private static final Set<String> CONDITIONS = Set.of("skip", "include");

  private record Coercion(GraphQLContext context, Locale locale) {
    /** The serialized leaf value, or INVALID when it does not coerce (the general path reports it). */
    Object serialize(GraphQLType leaf, Object raw) {
      try {
        Object out = leaf instanceof GraphQLScalarType scalar
            ? scalar.getCoercing().serialize(raw, context, locale)
            : ((GraphQLEnumType) leaf).serialize(raw, context, locale);
        return out == null ? INVALID : out;
      } catch (CoercingSerializeException e) {
        return INVALID;
      }
    }
  }

  /**
   * One selected field: its result key and how to read and serialize it (a constant when no reader);
   * {@code nullOnly}: an object field the shortcut answers only when it is null.
   */
  private record Column(String key, Function<Object, Object> read, GraphQLType leaf, Object constant,
      boolean nonNull, boolean list, boolean itemsNonNull, boolean nullOnly) {

    Object value(Object source, ExecutionContext ctx, Coercion coercion) {
      if (read == null) {
        return constant;
      }
      Object raw = read.apply(source);
      if (raw == INVALID) {
        return INVALID;
      }
      raw = ctx.getValueUnboxer().unbox(raw);
      if (raw == null) {
        return nonNull ? INVALID : null;
      }
      if (nullOnly) {
        return INVALID;
      }
      if (!list) {
        return coercion.serialize(leaf, raw);
      }
      if (!(raw instanceof Collection<?> items)) {
        return INVALID;
      }
      List<Object> out = new ArrayList<>(items.size());
      for (Object item : items) {
        item = ctx.getValueUnboxer().unbox(item);
        Object v = item == null ? (itemsNonNull ? INVALID : null) : coercion.serialize(leaf, item);
        if (v == INVALID) {
          return INVALID;
        }
        out.add(v);
      }
      return out;
    }
  }
}
