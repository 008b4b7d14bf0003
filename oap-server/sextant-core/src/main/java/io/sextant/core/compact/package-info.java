/** Compaction of closed minutes: one stored row per entity and minute instead of one per collector. */
package io.sextant.core.compact;
