package io.sextant.api.model;

import java.util.Arrays;
import java.util.Objects;

/**
 * One operation SkyWalking Rover saw from the kernel on a pod's connection, or one HTTP exchange it
 * decoded there: the observation of the K8S_SERVICE layer ("the mesh without a mesh"). It is told
 * from the watched side: {@code local*} is the pod Rover watches and {@code detectPoint} its role
 * on the connection (client or server), {@code remote*} the peer. An empty instance means the peer's
 * pod is not known. {@code endpoint} is {@code METHOD:/path} for HTTP, else empty; {@code success}
 * is the connect or close result, or a status below 500; {@code protocol} is what the connection
 * carries (HTTP for HTTP/1.x and HTTP/2, TCP otherwise) and {@code tlsMode} {@code TLS} when it is
 * encrypted. {@code values} holds one number per {@link KernelField}, by ordinal.
 */
public record KernelRecord(
    long startTimeMillis,
    Layer layer,
    DetectPoint detectPoint,
    String localService,
    String localInstance,
    String remoteService,
    String remoteInstance,
    KernelOperation operation,
    boolean success,
    int statusCode,
    String endpoint,
    CallProtocol protocol,
    String tlsMode,
    long[] values)
    implements Observation {

  /** The name SkyWalking gives a peer address it cannot resolve to a Kubernetes service (and its pod). */
  public static final String UNKNOWN = "Unknown";

  /** Equal field by field, the values by content (a record's array is its own, never changed). */
  @Override
  public boolean equals(Object o) {
    return o instanceof KernelRecord k && startTimeMillis == k.startTimeMillis && layer == k.layer
        && detectPoint == k.detectPoint && localService.equals(k.localService)
        && localInstance.equals(k.localInstance) && remoteService.equals(k.remoteService)
        && remoteInstance.equals(k.remoteInstance) && operation == k.operation && success == k.success
        && statusCode == k.statusCode && endpoint.equals(k.endpoint) && protocol == k.protocol
        && tlsMode.equals(k.tlsMode) && Arrays.equals(values, k.values);
  }

  @Override
  public int hashCode() {
    return Objects.hash(startTimeMillis, localService, localInstance, remoteService, remoteInstance, operation,
        endpoint) * 31 + Arrays.hashCode(values);
  }

  @Override
  public String toString() {
    return "KernelRecord[" + operation + " " + detectPoint + " " + localService + "/" + localInstance + " <-> "
        + remoteService + "/" + remoteInstance + " at " + startTimeMillis + " " + Arrays.toString(values) + "]";
  }

  public long value(KernelField field) {
    return values[field.ordinal()];
  }

  /** The caller: the local pod when it is the client, else the peer. */
  public String sourceService() {
    return detectPoint == DetectPoint.CLIENT ? localService : remoteService;
  }

  public String sourceInstance() {
    return detectPoint == DetectPoint.CLIENT ? localInstance : remoteInstance;
  }

  /** The called: the peer when the local pod is the client, else the local pod. */
  public String destService() {
    return detectPoint == DetectPoint.CLIENT ? remoteService : localService;
  }

  public String destInstance() {
    return detectPoint == DetectPoint.CLIENT ? remoteInstance : localInstance;
  }
}
