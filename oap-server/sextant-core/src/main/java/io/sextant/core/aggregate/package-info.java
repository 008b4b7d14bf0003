/** The hot path: bounded per-minute accumulators fed by injected dispatchers. */
package io.sextant.core.aggregate;
