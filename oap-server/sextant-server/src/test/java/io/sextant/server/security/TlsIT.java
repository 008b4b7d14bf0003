package io.sextant.server.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.linecorp.armeria.client.ClientFactory;
import com.linecorp.armeria.client.grpc.GrpcClients;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.sextant.server.testing.Bookinfo;
import io.sextant.server.testing.SextantExtension;
import io.sextant.server.testing.TestServer;
import io.sextant.testkit.poll.Poll;
import io.sextant.testkit.receiver.ClientStreams;
import io.sextant.testkit.tls.TestCertificates;
import io.sextant.testkit.tls.TestCertificates.Authority;
import io.sextant.testkit.tls.TestCertificates.Issued;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetricServiceGrpc;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetrics;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Both ports over TLS with certificates made here, mutual TLS on the gRPC port, and a certificate
 * renewed in place (as cert-manager does) while a sidecar's stream stays open across it.
 */
class TlsIT {
  @TempDir
  static Path dir;
  private static Authority ca;
  private static Issued serverCertificate;
  private static Issued client;
  private static Issued stranger;
  @RegisterExtension
  static final SextantExtension SEXTANT = SextantExtension.perClass(() -> {
    ca = TestCertificates.authority("Sextant test CA");
    serverCertificate = ca.issue("server", dir);
    client = ca.issue("client", dir);
    stranger = TestCertificates.authority("Someone else's CA").issue("stranger", dir);
    return Map.of("tls.grpc", "true", "tls.http", "true",
        "tls.certificateFile", serverCertificate.certificateFile().toString(),
        "tls.keyFile", serverCertificate.keyFile().toString(),
        "tls.clientCaFile", ca.writeCertificate(dir.resolve("ca.crt")).toString(),
        "server.fileCheckSeconds", "1");
  });
  private static TestServer sextant;
  private static final List<ClientFactory> FACTORIES = new java.util.ArrayList<>();

  @BeforeAll
  static void start() {
    sextant = SEXTANT.server();
  }

  @AfterAll
  static void stop() {
    FACTORIES.forEach(ClientFactory::close);
  }

  @Test
  void theGrpcPortTakesAClientOfItsCaAndRefusesOthers() throws Exception {
    List<ServiceMeshMetrics> traffic = Bookinfo.standard(System.currentTimeMillis()).messages(10);
    assertThat(ClientStreams.send(stub(client)::collect, traffic).getCode()).isEqualTo(Status.Code.OK);

    Status anonymous = ClientStreams.send(stub(null)::collect, traffic);
    assertThat(anonymous.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(anonymous.getDescription()).contains("client certificate signed by its client CA");

    // The server names the CAs it takes; a client holding none of theirs presents nothing.
    Status unknown = ClientStreams.send(stub(stranger)::collect, traffic);
    assertThat(unknown.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(unknown.getDescription()).contains("client certificate signed by its client CA");
    assertThat(sextant.server.registry().scrape()).contains("sextant_receiver_unauthenticated_total{"
        + "reason=\"no_client_certificate\",service=\"skywalking.v3.ServiceMeshMetricService\"} 2.0");
  }

  @Test
  void httpsServesGraphqlAndProbesWithoutAClientCertificate() throws Exception {
    HttpResponse<String> health = https("/healthz");
    assertThat(health.statusCode()).isEqualTo(200);
    HttpRequest query = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + sextant.httpPort + "/graphql"))
        .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
            "{\"query\": \"query { version }\"}")).build();
    assertThat(httpClient().send(query, HttpResponse.BodyHandlers.ofString()).body()).contains("\"version\"");
  }

  @Test
  void aRenewedCertificateReachesNewConnectionsWhileAnOpenStreamGoesOn() throws Exception {
    CompletableFuture<Status> end = new CompletableFuture<>();
    StreamObserver<ServiceMeshMetrics> open = stub(client).collect(ClientStreams.endingIn(end));
    List<ServiceMeshMetrics> traffic = Bookinfo.standard(System.currentTimeMillis()).messages(10);
    open.onNext(traffic.get(0));
    BigInteger before = servedSerial();
    assertThat(before).isEqualTo(serverCertificate.certificate().getSerialNumber());

    Issued renewed = ca.issue("server", dir); // the same two files, replaced
    Poll.until("the renewed certificate served", Duration.ofSeconds(15),
        () -> servedSerial().equals(renewed.certificate().getSerialNumber()));

    traffic.subList(1, traffic.size()).forEach(open::onNext);
    open.onCompleted();
    assertThat(end.get(10, TimeUnit.SECONDS).getCode()).as("the stream opened before").isEqualTo(Status.Code.OK);
  }

  /** The serial of the certificate a new connection is served. */
  private static BigInteger servedSerial() throws Exception {
    HttpResponse<String> r = https("/healthz");
    X509Certificate leaf = (X509Certificate) r.sslSession().orElseThrow().getPeerCertificates()[0];
    return leaf.getSerialNumber();
  }

  private static HttpResponse<String> https(String path) throws Exception {
    HttpRequest req = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + sextant.httpPort + path)).build();
    return httpClient().send(req, HttpResponse.BodyHandlers.ofString());
  }

  /** A new client each time, so each request makes a new connection (and handshake). */
  private static HttpClient httpClient() throws Exception {
    KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
    trust.load(null, null);
    trust.setCertificateEntry("ca", ca.certificate());
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(null, tmf.getTrustManagers(), null);
    return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(ssl).build();
  }

  /** A mesh-telemetry stub over TLS trusting the test CA, presenting {@code identity} if given. */
  private static ServiceMeshMetricServiceGrpc.ServiceMeshMetricServiceStub stub(Issued identity) {
    ClientFactory factory = ClientFactory.builder().tlsCustomizer(b -> {
      b.trustManager(ca.certificate());
      if (identity != null) {
        b.keyManager(identity.keys().getPrivate(), identity.certificate());
      }
    }).build();
    FACTORIES.add(factory);
    return GrpcClients.builder("https://127.0.0.1:" + sextant.grpcPort).factory(factory)
        .build(ServiceMeshMetricServiceGrpc.ServiceMeshMetricServiceStub.class);
  }
}
