/** Envoy's Access Log Service (and Satellite's twin): access-log entries become call and flow records. */
package io.sextant.receiver.envoy.als;
