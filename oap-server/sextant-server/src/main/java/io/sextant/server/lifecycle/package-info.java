/**
 * A collector's life from start to stop: the order its components start and stop in, readiness, the
 * shipped dashboards installed at a start, the draining of open client streams and the final write
 * of what was accepted.
 */
package io.sextant.server.lifecycle;
