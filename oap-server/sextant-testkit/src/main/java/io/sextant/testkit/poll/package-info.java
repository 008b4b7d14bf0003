/** Waiting in tests for a condition to hold, with a deadline and a reason, instead of a fixed sleep. */
package io.sextant.testkit.poll;
