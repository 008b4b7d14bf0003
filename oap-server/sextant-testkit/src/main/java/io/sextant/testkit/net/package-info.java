/** Network helpers for tests that start real servers. */
package io.sextant.testkit.net;
