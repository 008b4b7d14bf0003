/**
 * The HTTP port: its routes (GraphQL, probes, {@code /metrics}, SkyWalking's status endpoints),
 * GraphQL over HTTP and the exchange that turns a request body into an answer.
 */
package io.sextant.server.http;
