/** Rover's sampled HTTP traces (slow and erroneous calls), kept as records. */
package io.sextant.receiver.ebpf.trace;
