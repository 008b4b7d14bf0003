/**
 * The receiver contract and the ports of core a receiver calls: the sink it pushes records into,
 * the writer of kept records, the process registry and the profiling tasks.
 */
package io.sextant.api.receiver;
