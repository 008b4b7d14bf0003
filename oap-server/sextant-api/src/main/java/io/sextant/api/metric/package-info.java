/** Metric names shared by a receiver that produces a family's samples and the core table that defines it. */
package io.sextant.api.metric;
