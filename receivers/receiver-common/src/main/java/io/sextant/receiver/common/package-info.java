/** What every receiver shares: the client-stream helper, the common self-metrics and the peer resolver port. */
package io.sextant.receiver.common;
