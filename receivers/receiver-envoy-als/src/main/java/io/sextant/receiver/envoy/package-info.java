/** What Envoy's services share: Istio's workload metadata and how the mesh names a workload from it. */
package io.sextant.receiver.envoy;
