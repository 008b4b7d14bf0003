/**
 * SkyWalking's query protocol over graphql-java: the engine ({@link io.sextant.query.graphql.SextantGraphql},
 * field fetchers, the parsed-document cache, query limits); the schema areas are in {@code .area}.
 */
package io.sextant.query.graphql;
