package io.sextant.query.graphql;

import graphql.schema.idl.RuntimeWiring;

/**
 * One area of the query schema (metadata, topology, metrics, and next profiling, records,
 * management): an object built with only its own dependencies that wires its fields. The engine is
 * assembled from a list of areas, so a new area is a new class and one line in the server.
 */
public interface SchemaArea {
  void wire(RuntimeWiring.Builder wiring);
}
