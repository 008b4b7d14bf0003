package io.sextant.query.graphql;

import graphql.GraphQLContext;
import graphql.execution.CoercedVariables;
import graphql.language.IntValue;
import graphql.language.StringValue;
import graphql.language.Value;
import graphql.schema.Coercing;
import graphql.schema.CoercingParseLiteralException;
import graphql.schema.CoercingParseValueException;
import graphql.schema.GraphQLScalarType;
import java.util.Locale;

/** The protocol's {@code Long} scalar: a 64-bit integer, accepted as a number or numeric string. */
final class LongScalar {
  private LongScalar() {}

  static final GraphQLScalarType LONG = GraphQLScalarType.newScalar()
      .name("Long")
      .description("64-bit integer")
      .coercing(new Coercing<Long, Long>() {
        @Override
        public Long serialize(Object value, GraphQLContext context, Locale locale) {
          return ((Number) value).longValue();
        }

        @Override
        public Long parseValue(Object input, GraphQLContext context, Locale locale) {
          try {
            return input instanceof Number n ? n.longValue() : Long.parseLong(input.toString());
          } catch (NumberFormatException e) {
            throw new CoercingParseValueException("not a Long: " + input);
          }
        }

        @Override
        public Long parseLiteral(Value<?> input, CoercedVariables variables, GraphQLContext context, Locale locale) {
          if (input instanceof IntValue i) {
            return i.getValue().longValueExact();
          }
          if (input instanceof StringValue s) {
            try {
              return Long.parseLong(s.getValue());
            } catch (NumberFormatException e) {
              throw new CoercingParseLiteralException("not a Long: " + s.getValue());
            }
          }
          throw new CoercingParseLiteralException("not a Long: " + input);
        }
      })
      .build();
}
