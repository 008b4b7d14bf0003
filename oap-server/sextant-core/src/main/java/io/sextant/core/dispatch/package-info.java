/** Dispatchers: which entities each kind of record feeds (the rules, apart from the aggregator's mechanics). */
package io.sextant.core.dispatch;
