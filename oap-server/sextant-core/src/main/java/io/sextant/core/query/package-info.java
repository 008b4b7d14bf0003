/** The read side, one service per schema area, merging the partials of all collectors. */
package io.sextant.core.query;
