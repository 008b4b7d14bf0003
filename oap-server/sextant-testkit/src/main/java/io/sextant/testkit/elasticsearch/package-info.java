/** A real Elasticsearch for tests and scripts, run from the distribution the build fetches. */
package io.sextant.testkit.elasticsearch;
