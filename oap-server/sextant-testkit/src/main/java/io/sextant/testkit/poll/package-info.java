/**
 * Waiting in tests for a condition to hold (or to keep holding), with a deadline and a reason,
 * instead of a fixed sleep.
 */
package io.sextant.testkit.poll;
