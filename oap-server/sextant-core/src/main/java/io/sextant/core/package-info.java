/**
 * Sextant's core, the engine between the receivers and storage: this package holds only its
 * configuration ({@code core.*} keys, {@link io.sextant.core.CoreConfig}); the write path, the read
 * side, alarms, profiling and management live in the sub-packages.
 */
package io.sextant.core;
