/** The receivers' write ports over storage: records kept as they are (events, profiling data) and metadata. */
package io.sextant.core.record;
