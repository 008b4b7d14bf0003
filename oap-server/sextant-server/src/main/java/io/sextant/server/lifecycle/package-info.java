/**
 * A collector's life from start to stop: readiness, the shipped dashboards installed at a start,
 * the draining of open client streams and the final write of what was accepted.
 */
package io.sextant.server.lifecycle;
