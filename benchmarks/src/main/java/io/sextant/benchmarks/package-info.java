/** JMH benchmarks of the hot paths and the load generators that drive a whole server. */
package io.sextant.benchmarks;
