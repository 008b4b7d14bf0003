/**
 * The production store on Elasticsearch 8: every storage facet over index templates, bulk writes and low-level
 * reads.
 */
package io.sextant.storage.elasticsearch;
