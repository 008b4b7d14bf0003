/**
 * What the eBPF (SkyWalking Rover) receiver and the query side share: process ids, profiling tasks
 * and their stored forms.
 */
package io.sextant.api.ebpf;
