/** Inputs for property-based fuzzing (jqwik) shared by the modules' fuzz properties. */
package io.sextant.testkit.fuzz;
