/**
 * eBPF (SkyWalking Rover) profiling: tasks with SkyWalking's rules, their schedules, and flame-graph
 * analysis of the stacks Rover uploaded.
 */
package io.sextant.core.profiling;
