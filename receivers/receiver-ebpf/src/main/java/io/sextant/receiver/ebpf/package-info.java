/**
 * The SkyWalking Rover receiver: the assembly of Rover's services on the gRPC port and the pool
 * their storage-bound calls run on. One subpackage per service family: {@code process}, {@code
 * profiling}, {@code continuous}, {@code meter}, {@code trace}.
 */
package io.sextant.receiver.ebpf;
