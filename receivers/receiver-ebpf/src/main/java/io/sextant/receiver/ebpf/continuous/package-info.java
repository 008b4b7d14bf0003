/** Rover's continuous profiling: policy queries (cached per collector) and the tasks fired policies start. */
package io.sextant.receiver.ebpf.continuous;
