/**
 * Continuous profiling as SkyWalking's {@code continuous-profiling.graphqls} serves it: a service's
 * policy (set and read through the GraphQL side) and the processes and triggered tasks Rover watches
 * under it. Builds on {@code core.profiling}, which keeps the policies' stored form.
 */
package io.sextant.core.profiling.continuous;
