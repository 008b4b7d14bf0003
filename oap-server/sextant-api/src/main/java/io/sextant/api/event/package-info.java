/**
 * SkyWalking events (a deployment, a restart, a Kubernetes event) and how they are kept as records:
 * shared by the event receiver, which writes them, and the query side, which reads them.
 */
package io.sextant.api.event;
