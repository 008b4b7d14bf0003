package io.sextant.server.grpc;

import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.StreamObserver;
import io.sextant.api.component.CheckResult;
import java.util.function.Supplier;

/**
 * {@code grpc.health.v1.Health} on the receiver port, answering what {@code /readyz} answers (can
 * this collector take more data; storage health is not part of it): swctl and gRPC load balancers
 * probe it.
 */
public final class GrpcHealthService extends HealthGrpc.HealthImplBase {
  private final Supplier<CheckResult> health;

  public GrpcHealthService(Supplier<CheckResult> health) {
    this.health = health;
  }

  private HealthCheckResponse status() {
    return HealthCheckResponse.newBuilder()
        .setStatus(health.get().ok() ? ServingStatus.SERVING : ServingStatus.NOT_SERVING).build();
  }

  @Override
  public void check(HealthCheckRequest request, StreamObserver<HealthCheckResponse> response) {
    response.onNext(status());
    response.onCompleted();
  }

  @Override
  public void watch(HealthCheckRequest request, StreamObserver<HealthCheckResponse> response) {
    response.onNext(status()); // one answer; watchers re-probe
    response.onCompleted();
  }
}
