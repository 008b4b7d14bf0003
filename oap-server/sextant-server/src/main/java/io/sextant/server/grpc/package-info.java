/**
 * The receiver port's gRPC side: the routes and filters in front of the receivers' services (whole
 * messages only, unserved calls answered trailers-only), the gRPC health service, the per-peer
 * message rate and the logging of peers that break HTTP/2.
 */
package io.sextant.server.grpc;
