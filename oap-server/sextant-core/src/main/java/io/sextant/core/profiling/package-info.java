/**
 * eBPF (SkyWalking Rover) profiling: tasks with SkyWalking's rules, their schedules, flame-graph
 * analysis of the stacks Rover uploaded, and the stored forms of tasks and continuous-profiling
 * policies ({@code continuous} builds on this package).
 */
package io.sextant.core.profiling;
