/**
 * The write-ahead spool: durability for the write path, as the implementations of the ports the
 * write path owns ({@link io.sextant.core.aggregate.Journal}, {@link io.sextant.core.flush.CutLog}).
 * It stands above {@code aggregate} and {@code flush}; neither imports it.
 */
package io.sextant.core.spool;
