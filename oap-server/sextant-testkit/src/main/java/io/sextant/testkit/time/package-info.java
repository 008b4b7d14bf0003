/** Time for tests: a clock they move themselves. */
package io.sextant.testkit.time;
