/** Metric families declared as tables of rows over mergeable aggregate functions. */
package io.sextant.core.metric;
