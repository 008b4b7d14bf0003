/** SkyWalking's service-mesh telemetry protocol: validated HTTP and TCP records become call and flow records. */
package io.sextant.receiver.mesh;
