package io.sextant.api.ebpf;

/**
 * One stack Rover sampled: {@code count} is the on-CPU dump count or the off-CPU switch count, {@code
 * durationNanos} the off-CPU time (0 on CPU). The stacks are indexes into their batch's symbol
 * table, in Rover's order (innermost frame first): the kernel-space stack and the user-space stack
 * (either may be empty).
 */
public record StackSample(long count, long durationNanos, int[] kernelSymbols, int[] userSymbols) {}
