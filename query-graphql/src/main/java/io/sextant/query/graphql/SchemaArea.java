package io.sextant.query.graphql;

import graphql.schema.idl.RuntimeWiring;

/**
 * One area of the query schema (metadata, topology, metrics, records, profiling, alarms, ...): an
 * object built with only its own dependencies that wires its fields. The engine is assembled from a
 * list of areas, so a new area is a new class and one line in {@link SextantGraphql#standardAreas}
 * (or in the server, for an area over a part the server owns, such as the alarm engine).
 */
public interface SchemaArea {
  void wire(RuntimeWiring.Builder wiring);
}
