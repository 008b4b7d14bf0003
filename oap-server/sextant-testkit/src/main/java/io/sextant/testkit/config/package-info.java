/** Settings built from a plugin's declared keys, for its tests. */
package io.sextant.testkit.config;
