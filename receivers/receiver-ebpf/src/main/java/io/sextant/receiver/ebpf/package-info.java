/**
 * The SkyWalking Rover receiver: Rover's process registration, profiling-task polls and stack
 * samples, continuous-profiling policies and network-profiling meters, on the gRPC port.
 */
package io.sextant.receiver.ebpf;
