/**
 * One {@link io.sextant.query.graphql.SchemaArea} per part of SkyWalking's GraphQL schema, each built
 * over the core read services it needs and nothing else.
 */
package io.sextant.query.graphql.area;
