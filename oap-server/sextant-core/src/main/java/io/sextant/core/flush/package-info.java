/** The flusher: collects accumulators, rolls minutes up to hours and days, and writes to storage, bounded. */
package io.sextant.core.flush;
