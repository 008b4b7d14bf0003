/** The entity registry: metadata and topology edges derived from the accumulators the flusher writes. */
package io.sextant.core.topology;
