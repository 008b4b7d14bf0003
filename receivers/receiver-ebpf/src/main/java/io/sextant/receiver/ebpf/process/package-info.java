/** Rover's process registration ({@code EBPFProcessService}): entities checked, handed to core's process registry. */
package io.sextant.receiver.ebpf.process;
