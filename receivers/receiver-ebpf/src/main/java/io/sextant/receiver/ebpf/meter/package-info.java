/** Rover's meters (network and continuous profiling) evaluated into process samples for the aggregator. */
package io.sextant.receiver.ebpf.meter;
