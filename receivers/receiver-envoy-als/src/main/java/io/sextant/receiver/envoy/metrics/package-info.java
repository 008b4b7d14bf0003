/** Envoy's metrics service: proxy statistics become MESH_DP samples named as SkyWalking's rules name them. */
package io.sextant.receiver.envoy.metrics;
