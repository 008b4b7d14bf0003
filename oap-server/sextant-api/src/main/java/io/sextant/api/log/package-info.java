/** Logs (Envoy's failed requests) as SkyWalking's query protocol shows them, and how they are stored. */
package io.sextant.api.log;
