/** Rover's profiling service: task polls answered from core's tasks, schedules and stacks stored as records. */
package io.sextant.receiver.ebpf.profiling;
