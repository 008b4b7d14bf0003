/** SkyWalking's query protocol over graphql-java: the engine and one schema area object per area. */
package io.sextant.query.graphql;
