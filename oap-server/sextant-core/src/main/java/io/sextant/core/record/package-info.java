/** Records kept as they are (events, profiling data): the receivers' write port over storage. */
package io.sextant.core.record;
