/** The embedded default store: every storage facet in memory, bounded, with evictions counted. */
package io.sextant.storage.memory;
