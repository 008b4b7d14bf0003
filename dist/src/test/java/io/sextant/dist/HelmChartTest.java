package io.sextant.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** helm lint and helm template over the test values files; every manifest parsed strictly. */
class HelmChartTest {
  private static Helm helm;

  @BeforeAll
  static void helm() {
    helm = Helm.required();
  }

  @ParameterizedTest
  @ValueSource(strings = {"minimal.yaml", "memory-single.yaml", "ha-hpa.yaml", "es-auth-tls.yaml",
      "es-apikey-truststore.yaml", "es-spool-claims.yaml", "secured.yaml"})
  void lintsAndRendersManifestsTheKubernetesApiAccepts(String values) {
    Helm.Result lint = helm.run(List.of("lint", "--strict", Helm.CHART.toString(), "-f",
        Helm.VALUES.resolve(values).toString()));
    assertThat(lint.exitCode()).as(lint.stdout() + lint.stderr()).isZero();
    Manifests m = Manifests.parse(helm.template(values).rendered());
    assertThat(m.of(Deployment.class).size() + m.of(StatefulSet.class).size()).as("one workload").isEqualTo(1);
  }

  @Test
  void minimalIsOneHardenedCollectorOnTheMemoryStore() {
    Manifests m = Manifests.parse(helm.template("minimal.yaml").rendered());
    Deployment d = m.one(Deployment.class);
    assertThat(d.getSpec().getReplicas()).isEqualTo(1);
    PodSpec pod = d.getSpec().getTemplate().getSpec();
    Container c = pod.getContainers().get(0);
    Map<String, EnvVar> env = env(c);
    assertThat(env.get("SEXTANT_CORE_COLLECTOR_ID").getValueFrom().getFieldRef().getFieldPath())
        .isEqualTo("metadata.name");
    assertThat(env.get("SEXTANT_STORAGE_SELECTOR").getValue()).isEqualTo("memory");
    assertThat(env.get("SEXTANT_SERVER_GRPC_PORT").getValue()).isEqualTo("11800");
    assertThat(env.get("SEXTANT_SERVER_HTTP_PORT").getValue()).isEqualTo("12800");
    assertThat(env.get("JAVA_HEAP_OPTS").getValue()).contains("-XX:MaxRAMPercentage=60");
    assertThat(env).doesNotContainKey("JAVA_OPTS");
    assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(pod.getTerminationGracePeriodSeconds()).isEqualTo(60L);
    assertThat(pod.getEnableServiceLinks()).isFalse();
    assertThat(pod.getAutomountServiceAccountToken()).isFalse();
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(c.getVolumeMounts()).anyMatch(v -> v.getMountPath().equals("/tmp") && !Boolean.TRUE.equals(
        v.getReadOnly()));
    assertThat(pod.getTopologySpreadConstraints()).extracting(t -> t.getTopologyKey())
        .containsExactly("kubernetes.io/hostname", "topology.kubernetes.io/zone");

    Service grpc = m.service("sextant-grpc");
    assertThat(grpc.getSpec().getClusterIP()).isEqualTo("None");
    assertThat(grpc.getSpec().getPorts()).singleElement().satisfies(p -> assertThat(p.getPort()).isEqualTo(11800));
    Service http = m.service("sextant-http");
    assertThat(http.getSpec().getType()).isEqualTo("ClusterIP");
    assertThat(http.getSpec().getClusterIP()).isNull();
    assertThat(http.getSpec().getPorts()).singleElement().satisfies(p -> assertThat(p.getPort()).isEqualTo(12800));

    assertThat(m.of(HorizontalPodAutoscaler.class)).isEmpty();
    assertThat(m.of(PodDisruptionBudget.class)).as("one replica must stay drainable").isEmpty();
    assertThat(m.of(ClusterRole.class)).isEmpty();
    assertThat(m.of(ServiceAccount.class)).isEmpty();
    assertThat(m.of(Ingress.class)).isEmpty();
    assertThat(m.serviceMonitors()).isEmpty();
  }

  @Test
  void highAvailabilityScalesOnCpuAndRecordsWithRbacIngressAndMonitor() {
    Manifests m = Manifests.parse(helm.template("ha-hpa.yaml").rendered());
    Deployment d = m.one(Deployment.class);
    assertThat(d.getSpec().getReplicas()).as("the autoscaler owns replicas").isNull();
    HorizontalPodAutoscaler hpa = m.one(HorizontalPodAutoscaler.class);
    assertThat(hpa.getSpec().getMinReplicas()).isEqualTo(3);
    assertThat(hpa.getSpec().getMaxReplicas()).isEqualTo(10);
    assertThat(hpa.getSpec().getMetrics()).extracting(x -> x.getType()).containsExactly("Resource", "Pods");
    assertThat(hpa.getSpec().getMetrics().get(1).getPods().getMetric().getName())
        .isEqualTo("sextant_receiver_records_accepted_per_second");
    assertThat(m.one(PodDisruptionBudget.class).getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);

    Map<String, EnvVar> env = env(d.getSpec().getTemplate().getSpec().getContainers().get(0));
    assertThat(env.get("SEXTANT_STORAGE_SELECTOR").getValue()).isEqualTo("elasticsearch");
    assertThat(env.get("SEXTANT_STORAGE_ELASTICSEARCH_HOSTS").getValue())
        .isEqualTo("elasticsearch-master.logging:9200");
    assertThat(env.get("SEXTANT_STORAGE_ELASTICSEARCH_TLS").getValue()).isEqualTo("false");
    assertThat(env.get("SEXTANT_RECEIVER_ALS_KUBERNETES_ENABLED").getValue()).isEqualTo("true");

    ServiceAccount sa = m.one(ServiceAccount.class);
    assertThat(d.getSpec().getTemplate().getSpec().getServiceAccountName()).isEqualTo(sa.getMetadata().getName());
    assertThat(d.getSpec().getTemplate().getSpec().getAutomountServiceAccountToken()).isTrue();
    ClusterRole role = m.one(ClusterRole.class);
    assertThat(role.getRules()).singleElement().satisfies(r -> {
      assertThat(r.getResources()).containsExactly("pods", "services");
      assertThat(r.getVerbs()).containsExactly("get", "list", "watch");
    });
    ClusterRoleBinding binding = m.one(ClusterRoleBinding.class);
    assertThat(binding.getSubjects()).singleElement().satisfies(s -> {
      assertThat(s.getName()).isEqualTo(sa.getMetadata().getName());
      assertThat(s.getNamespace()).isEqualTo("observability");
    });

    Ingress ingress = m.one(Ingress.class);
    assertThat(ingress.getSpec().getRules().get(0).getHttp().getPaths().get(0).getBackend().getService().getName())
        .isEqualTo("sextant-http");
    assertThat(m.serviceMonitors()).singleElement().satisfies(sm -> {
      assertThat(sm.path("spec").path("endpoints").get(0).path("path").asText()).isEqualTo("/metrics");
      assertThat(sm.path("metadata").path("labels").path("release").asText()).isEqualTo("prometheus");
    });
    assertThat(m.one(ConfigMap.class).getData().get("application.yml")).contains("bulkConcurrency: 4");
  }

  @Test
  void roversPodResolutionGetsTheSameServiceAccountAndRole() {
    Manifests m = Manifests.parse(helm.template("minimal.yaml", "rover.accessLog.kubernetes.enabled=true").rendered());
    Deployment d = m.one(Deployment.class);
    Map<String, EnvVar> env = env(d.getSpec().getTemplate().getSpec().getContainers().get(0));
    assertThat(env.get("SEXTANT_RECEIVER_EBPF_ACCESS_LOG_KUBERNETES_ENABLED").getValue()).isEqualTo("true");
    assertThat(env.get("SEXTANT_RECEIVER_ALS_KUBERNETES_ENABLED").getValue()).isEqualTo("false");
    ServiceAccount sa = m.one(ServiceAccount.class);
    assertThat(d.getSpec().getTemplate().getSpec().getServiceAccountName()).isEqualTo(sa.getMetadata().getName());
    assertThat(d.getSpec().getTemplate().getSpec().getAutomountServiceAccountToken()).isTrue();
    assertThat(m.one(ClusterRole.class).getRules()).singleElement()
        .satisfies(r -> assertThat(r.getVerbs()).containsExactly("get", "list", "watch"));
  }

  @Test
  void elasticsearchOverHttpsWithUserFromSecretAndCaTurnedIntoTrustStore() {
    Manifests m = Manifests.parse(helm.template("es-auth-tls.yaml").rendered());
    PodSpec pod = m.one(Deployment.class).getSpec().getTemplate().getSpec();
    Map<String, EnvVar> env = env(pod.getContainers().get(0));
    assertThat(env.get("SEXTANT_STORAGE_ELASTICSEARCH_HOSTS").getValue())
        .isEqualTo("quickstart-es-http.elastic-system:9200,quickstart-es-http-2.elastic-system:9200");
    assertThat(env.get("SEXTANT_STORAGE_ELASTICSEARCH_TLS").getValue()).isEqualTo("true");
    assertThat(env.get("SEXTANT_STORAGE_ELASTICSEARCH_USERNAME").getValueFrom().getSecretKeyRef().getName())
        .isEqualTo("sextant-es-credentials");
    assertThat(env.get("SEXTANT_STORAGE_ELASTICSEARCH_PASSWORD").getValueFrom().getSecretKeyRef().getKey())
        .isEqualTo("password");
    assertThat(env).doesNotContainKey("SEXTANT_STORAGE_ELASTICSEARCH_API_KEY");
    assertThat(env.get("SEXTANT_STORAGE_ELASTICSEARCH_TRUST_STORE_PATH").getValue())
        .isEqualTo("/var/run/sextant/truststore/truststore.p12");
    Container init = pod.getInitContainers().get(0);
    assertThat(init.getCommand()).contains("keytool", "/etc/sextant/es-ca/ca.crt",
        "/var/run/sextant/truststore/truststore.p12");
    assertThat(init.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(pod.getVolumes()).anyMatch(v -> v.getSecret() != null
        && v.getSecret().getSecretName().equals("quickstart-es-http-certs-public"));
    assertThat(m.one(PodDisruptionBudget.class)).isNotNull();
  }

  @Test
  void elasticsearchWithApiKeyAndReadyMadeTrustStore() {
    Manifests m = Manifests.parse(helm.template("es-apikey-truststore.yaml").rendered());
    PodSpec pod = m.one(Deployment.class).getSpec().getTemplate().getSpec();
    Map<String, EnvVar> env = env(pod.getContainers().get(0));
    assertThat(env.get("SEXTANT_STORAGE_ELASTICSEARCH_API_KEY").getValueFrom().getSecretKeyRef().getKey())
        .isEqualTo("api-key");
    assertThat(env).doesNotContainKeys("SEXTANT_STORAGE_ELASTICSEARCH_USERNAME",
        "SEXTANT_STORAGE_ELASTICSEARCH_PASSWORD");
    assertThat(env.get("SEXTANT_STORAGE_ELASTICSEARCH_TRUST_STORE_PATH").getValue())
        .isEqualTo("/etc/sextant/es-truststore/truststore.p12");
    assertThat(env.get("SEXTANT_STORAGE_ELASTICSEARCH_TRUST_STORE_PASSWORD").getValueFrom().getSecretKeyRef()
        .getName()).isEqualTo("sextant-es-truststore");
    assertThat(env.get("JAVA_OPTS").getValue()).contains("-XX:+UseG1GC");
    assertThat(pod.getInitContainers()).isEmpty();
  }

  @Test
  void spoolOnAnEmptyDirKeepsTheDeploymentWithAPodVolume() {
    Manifests m = Manifests.parse(helm.template("es-auth-tls.yaml", "spool.enabled=true").rendered());
    PodSpec pod = m.one(Deployment.class).getSpec().getTemplate().getSpec();
    Container c = pod.getContainers().get(0);
    Map<String, EnvVar> env = env(c);
    assertThat(env.get("SEXTANT_CORE_SPOOL_DIRECTORY").getValue()).isEqualTo("/var/lib/sextant/spool");
    assertThat(env.get("SEXTANT_CORE_SPOOL_MAX_MEGABYTES").getValue()).isEqualTo("1536");
    assertThat(env.get("SEXTANT_CORE_SPOOL_FSYNC").getValue()).isEqualTo("interval");
    assertThat(c.getVolumeMounts()).anyMatch(v -> v.getName().equals("spool")
        && v.getMountPath().equals("/var/lib/sextant/spool") && !Boolean.TRUE.equals(v.getReadOnly()));
    assertThat(pod.getVolumes()).filteredOn(v -> v.getName().equals("spool")).singleElement()
        .satisfies(v -> assertThat(v.getEmptyDir().getSizeLimit().toString()).isEqualTo("2Gi"));
  }

  @Test
  void spoolOnClaimsRunsAStatefulSetWhoseCollectorsKeepTheirVolumes() {
    Manifests m = Manifests.parse(helm.template("ha-hpa.yaml", "spool.enabled=true",
        "spool.volume=persistentVolumeClaim", "spool.size=5Gi", "spool.storageClassName=fast-ssd",
        "spool.fsync=always").rendered());
    assertThat(m.of(Deployment.class)).isEmpty();
    StatefulSet set = m.one(StatefulSet.class);
    assertThat(set.getSpec().getServiceName()).as("the headless gRPC Service names the pods")
        .isEqualTo("sextant-grpc");
    assertThat(set.getSpec().getPodManagementPolicy()).isEqualTo("Parallel");
    assertThat(set.getSpec().getVolumeClaimTemplates()).singleElement().satisfies(claim -> {
      assertThat(claim.getMetadata().getName()).isEqualTo("spool");
      assertThat(claim.getSpec().getStorageClassName()).isEqualTo("fast-ssd");
      assertThat(claim.getSpec().getResources().getRequests().get("storage").toString()).isEqualTo("5Gi");
    });
    PodSpec pod = set.getSpec().getTemplate().getSpec();
    assertThat(pod.getVolumes()).noneMatch(v -> v.getName().equals("spool")); // the claim is the volume
    assertThat(pod.getContainers().get(0).getVolumeMounts()).anyMatch(v -> v.getName().equals("spool"));
    assertThat(env(pod.getContainers().get(0)).get("SEXTANT_CORE_SPOOL_FSYNC").getValue()).isEqualTo("always");
    assertThat(m.one(HorizontalPodAutoscaler.class).getSpec().getScaleTargetRef().getKind()).isEqualTo("StatefulSet");
  }

  @Test
  void theSkyWalkingUiComesWithOneInstallAndTalksToTheHttpService() {
    Helm.Result lint = helm.run(List.of("lint", "--strict", Helm.CHART.toString(), "--set", "ui.enabled=true"));
    assertThat(lint.exitCode()).as(lint.stdout() + lint.stderr()).isZero();
    Manifests m = Manifests.parse(helm.template("minimal.yaml", "ui.enabled=true").rendered());
    Deployment ui = m.of(Deployment.class).stream().filter(d -> d.getMetadata().getName().equals("sextant-ui"))
        .findFirst().orElseThrow();
    Container c = ui.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getImage()).isEqualTo("apache/skywalking-ui:10.4.0");
    // The UI's proxy reaches the collectors through their HTTP Service, in the release's namespace.
    assertThat(env(c).get("SW_OAP_ADDRESS").getValue()).isEqualTo("http://sextant-http.observability:12800");
    assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/internal/l7check");
    assertThat(ui.getSpec().getSelector().getMatchLabels()).containsEntry("app.kubernetes.io/component", "ui");
    Service service = m.service("sextant-ui");
    assertThat(service.getSpec().getPorts()).singleElement().satisfies(p -> assertThat(p.getPort()).isEqualTo(8080));
    // The collectors' selector does not take the UI's pods into their Services.
    assertThat(m.service("sextant-http").getSpec().getSelector()).containsEntry("app.kubernetes.io/component",
        "collector");
    assertThat(Manifests.parse(helm.template("minimal.yaml").rendered()).of(Deployment.class)).hasSize(1);

    // Behind the NetworkPolicy, the chart's UI is admitted to the HTTP port beside httpFrom.
    Manifests secured = Manifests.parse(helm.template("secured.yaml", "ui.enabled=true", "security.tls.http=false")
        .rendered());
    assertThat(secured.one(NetworkPolicy.class).getSpec().getIngress().get(1).getFrom())
        .anyMatch(peer -> peer.getPodSelector() != null && "ui".equals(
            peer.getPodSelector().getMatchLabels().get("app.kubernetes.io/component")));
    Helm.Result tls = helm.template("secured.yaml", "ui.enabled=true");
    assertThat(tls.exitCode()).isNotZero();
    assertThat(tls.stderr()).contains("ui.enabled needs security.tls.http=false");
  }

  @Test
  void horizonComesWithOneInstallAndReadsEverythingFromTheHttpService() throws Exception {
    String hash = "$argon2id$v=19$c2FsdA$aGFzaA"; // no commas: --set splits on them
    List<String> values = List.of("horizon.enabled=true", "horizon.credentialsSecret=horizon-sextant",
        "horizon.users[0].username=admin", "horizon.users[0].passwordHash=" + hash, "horizon.users[0].roles[0]=admin");
    List<String> lintArgs = new ArrayList<>(List.of("lint", "--strict", Helm.CHART.toString()));
    values.forEach(v -> lintArgs.addAll(List.of("--set", v)));
    Helm.Result lint = helm.run(lintArgs);
    assertThat(lint.exitCode()).as(lint.stdout() + lint.stderr()).isZero();
    Manifests m = Manifests.parse(helm.template("minimal.yaml", values.toArray(String[]::new)).rendered());
    Deployment horizon = m.of(Deployment.class).stream()
        .filter(d -> d.getMetadata().getName().equals("sextant-horizon")).findFirst().orElseThrow();
    Container c = horizon.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getImage()).isEqualTo("apache/skywalking-ui:horizon-0.7.0");
    assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/api/health");
    // The Sextant credentials come from the user's Secret into the environment, never into the file.
    assertThat(env(c).get("SEXTANT_PASSWORD").getValueFrom().getSecretKeyRef().getName()).isEqualTo("horizon-sextant");
    Secret config = m.of(Secret.class).stream().filter(s -> s.getMetadata().getName().equals("sextant-horizon"))
        .findFirst().orElseThrow();
    JsonNode yaml = new ObjectMapper(new YAMLFactory()).readTree(config.getStringData().get("horizon.yaml"));
    for (String url : List.of("queryUrl", "adminUrl")) {
      assertThat(yaml.path("oap").path(url).asText()).isEqualTo("http://sextant-http.observability:12800");
    }
    assertThat(yaml.path("oap").path("auth").path("password").asText()).isEqualTo("${SEXTANT_PASSWORD}");
    assertThat(yaml.at("/auth/local/users/0/passwordHash").asText()).isEqualTo(hash);
    assertThat(horizon.getSpec().getTemplate().getSpec().getVolumes()).anyMatch(v -> v.getSecret() != null
        && v.getSecret().getSecretName().equals("sextant-horizon"));
    assertThat(m.service("sextant-horizon").getSpec().getPorts()).singleElement()
        .satisfies(p -> assertThat(p.getPort()).isEqualTo(8081));
    assertThat(m.service("sextant-http").getSpec().getSelector()).containsEntry("app.kubernetes.io/component",
        "collector");
    // An operator's own horizon.yaml (LDAP, RBAC) replaces the chart's.
    Manifests own = Manifests.parse(helm.template("minimal.yaml", "horizon.enabled=true",
        "horizon.existingConfigSecret=my-horizon").rendered());
    assertThat(own.of(Secret.class)).noneMatch(s -> s.getMetadata().getName().equals("sextant-horizon"));
    assertThat(own.of(Deployment.class).stream().flatMap(d -> d.getSpec().getTemplate().getSpec().getVolumes()
        .stream()).filter(v -> v.getSecret() != null).map(v -> v.getSecret().getSecretName())).contains("my-horizon");

    Manifests secured = Manifests.parse(helm.template("secured.yaml", "horizon.enabled=true",
        "security.tls.http=false").rendered());
    assertThat(secured.one(NetworkPolicy.class).getSpec().getIngress().get(1).getFrom())
        .anyMatch(peer -> peer.getPodSelector() != null && "horizon".equals(
            peer.getPodSelector().getMatchLabels().get("app.kubernetes.io/component")));
    assertThat(helm.template("secured.yaml", "horizon.enabled=true").stderr())
        .contains("horizon.enabled needs security.tls.http=false");
  }

  @Test
  void refusesTheSpoolOnTheMemoryStore() {
    Helm.Result r = helm.template("minimal.yaml", "spool.enabled=true");
    assertThat(r.exitCode()).isNotZero();
    assertThat(r.stderr()).contains("spool.enabled needs storage.type=elasticsearch");
  }

  @Test
  void refusesTheMemoryStoreWithSeveralCollectors() {
    Helm.Result r = helm.template("refused-memory-three-replicas.yaml");
    assertThat(r.exitCode()).isNotZero();
    assertThat(r.stderr()).contains("storage.type=memory allows exactly one collector, but this release could run 3")
        .contains("use storage.type: elasticsearch");
    Helm.Result autoscaled = helm.template("minimal.yaml", "autoscaling.enabled=true");
    assertThat(autoscaled.exitCode()).isNotZero();
    assertThat(autoscaled.stderr()).contains("storage.type=memory allows exactly one collector");
  }

  @Test
  void schemaRejectsUnknownAndMistypedValuesWithTheirPath() {
    Helm.Result unknownKey = helm.template("minimal.yaml", "config.core.flushIntervalMilis=100");
    assertThat(unknownKey.exitCode()).isNotZero();
    assertThat(unknownKey.stderr()).contains("values don't meet the specifications of the schema")
        .contains("flushIntervalMilis");
    Helm.Result managedKey = helm.template("minimal.yaml", "config.core.collectorId=x");
    assertThat(managedKey.exitCode()).isNotZero();
    assertThat(managedKey.stderr()).contains("collectorId");
    Helm.Result wrongType = helm.template("minimal.yaml", "config.core.flushIntervalMillis=fast");
    assertThat(wrongType.exitCode()).isNotZero();
    assertThat(wrongType.stderr()).contains("flushIntervalMillis");
    Helm.Result badStorage = helm.template("minimal.yaml", "storage.type=cassandra");
    assertThat(badStorage.exitCode()).isNotZero();
    assertThat(badStorage.stderr()).contains("storage.type");
    Helm.Result esWithoutUrl = helm.template("minimal.yaml", "storage.type=elasticsearch");
    assertThat(esWithoutUrl.exitCode()).isNotZero();
    assertThat(esWithoutUrl.stderr()).contains("storage.type=elasticsearch needs storage.elasticsearch.url");
  }

  @Test
  void securityComesFromExistingSecretsMountedWholeSoRotationsArrive() {
    Manifests m = Manifests.parse(helm.template("secured.yaml").rendered());
    PodSpec pod = m.one(Deployment.class).getSpec().getTemplate().getSpec();
    Container c = pod.getContainers().get(0);
    Map<String, EnvVar> env = env(c);
    assertThat(env.get("SEXTANT_AUTH_RECEIVER_TOKENS_FILE").getValue())
        .isEqualTo("/etc/sextant/receiver-tokens/tokens");
    assertThat(env.get("SEXTANT_AUTH_RECEIVERS_WITHOUT_TOKEN").getValue())
        .isEqualTo("envoy.service.accesslog.v3.AccessLogService");
    assertThat(env.get("SEXTANT_AUTH_USERS_FILE").getValue()).isEqualTo("/etc/sextant/users/users.yaml");
    assertThat(env.get("SEXTANT_AUTH_ANONYMOUS").getValue()).isEqualTo("none");
    assertThat(env.get("SEXTANT_AUTH_METRICS_TOKEN").getValueFrom().getSecretKeyRef().getName())
        .isEqualTo("sextant-metrics-token");
    assertThat(env.get("SEXTANT_TLS_CLIENT_CA_FILE").getValue()).isEqualTo("/etc/sextant/tls/ca.crt");
    assertThat(env.get("SEXTANT_TLS_HTTP").getValue()).isEqualTo("true");
    assertThat(env.get("SEXTANT_ALARM_SETTINGS_FILE").getValue()).isEqualTo("/etc/sextant/alarms/alarm-settings.yml");
    // A subPath mount would never see the Secret's updates.
    assertThat(c.getVolumeMounts()).filteredOn(v -> v.getMountPath().startsWith("/etc/sextant/"))
        .allMatch(v -> v.getSubPath() == null && Boolean.TRUE.equals(v.getReadOnly()));
    assertThat(pod.getVolumes()).filteredOn(v -> v.getSecret() != null).extracting(v -> v.getSecret().getSecretName())
        .containsExactlyInAnyOrder("sextant-receiver-tokens", "sextant-users", "sextant-tls", "sextant-alarms");
    assertThat(List.of(c.getStartupProbe(), c.getLivenessProbe(), c.getReadinessProbe()))
        .allMatch(p -> "HTTPS".equals(p.getHttpGet().getScheme()));

    assertThat(m.serviceMonitors()).singleElement().satisfies(sm -> {
      var endpoint = sm.path("spec").path("endpoints").get(0);
      assertThat(endpoint.path("scheme").asText()).isEqualTo("https");
      assertThat(endpoint.at("/authorization/credentials/name").asText()).isEqualTo("sextant-metrics-token");
      assertThat(endpoint.at("/tlsConfig/ca/secret/name").asText()).isEqualTo("sextant-tls");
    });
    NetworkPolicy policy = m.one(NetworkPolicy.class);
    assertThat(policy.getSpec().getIngress()).hasSize(2);
    assertThat(policy.getSpec().getIngress().get(0).getPorts().get(0).getPort().getStrVal()).isEqualTo("grpc");
    assertThat(policy.getSpec().getIngress().get(0).getFrom()).singleElement()
        .satisfies(p -> assertThat(p.getNamespaceSelector().getMatchLabels()).containsEntry("istio-injection",
            "enabled"));
    assertThat(policy.getSpec().getIngress().get(1).getFrom()).hasSize(2);

    Helm.Result open = helm.template("minimal.yaml", "networkPolicy.enabled=true");
    assertThat(open.exitCode()).isNotZero();
    assertThat(open.stderr()).contains("networkPolicy.enabled needs networkPolicy.grpcFrom");
    Manifests plain = Manifests.parse(helm.template("minimal.yaml").rendered());
    assertThat(plain.of(NetworkPolicy.class)).isEmpty();
    assertThat(env(plain.one(Deployment.class).getSpec().getTemplate().getSpec().getContainers().get(0)))
        .containsKey("SEXTANT_AUTH_ANONYMOUS")
        .doesNotContainKeys("SEXTANT_TLS_GRPC", "SEXTANT_AUTH_USERS_FILE", "SEXTANT_ALARM_SETTINGS_FILE");
  }

  /**
   * helm renders NOTES.txt only on install (which needs a cluster); a copy of the chart renders the
   * same text through tpl inside a ConfigMap, with the release's names.
   */
  @Test
  void notesTellWhereToPointIstioRoverAndSwctl(@TempDir Path tmp) throws IOException {
    Path chart = tmp.resolve("sextant");
    try (Stream<Path> files = Files.walk(Helm.CHART)) {
      for (Path f : files.toList()) {
        Files.copy(f, chart.resolve(Helm.CHART.relativize(f).toString()));
      }
    }
    Files.move(chart.resolve("templates/NOTES.txt"), chart.resolve("notes-under-test.txt"));
    Files.writeString(chart.resolve("templates/notes-under-test.yaml"), """
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: notes-under-test
        data:
          NOTES.txt: {{ tpl (.Files.Get "notes-under-test.txt") . | quote }}
        """);
    String rendered = helm.run(List.of("template", "sextant", chart.toString(), "--namespace", "observability",
        "--kube-version", Helm.KUBE_VERSION, "--show-only", "templates/notes-under-test.yaml", "-f",
        Helm.VALUES.resolve("ha-hpa.yaml").toString(), "--set", "ui.enabled=true")).rendered();
    String notes = Manifests.parse(rendered).one(ConfigMap.class).getData().get("NOTES.txt");
    String grpc = "sextant-grpc.observability.svc.cluster.local:11800";
    assertThat(notes).contains("enableEnvoyAccessLogService: true")
        .contains("envoyAccessLogService:\n           address: " + grpc)
        .contains("envoyMetricsService:\n           address: " + grpc)
        .contains("ROVER_BACKEND_ADDR=" + grpc)
        .contains("swctl --base-url=http://sextant-http.observability.svc.cluster.local:12800/graphql")
        .contains("https://sextant.example.com/graphql")
        .contains("GraphQL is read-only: no users are configured")
        .contains("kubectl -n observability port-forward svc/sextant-ui 8080");
    String secured = helm.run(List.of("template", "sextant", chart.toString(), "--namespace", "observability",
        "--kube-version", Helm.KUBE_VERSION, "--show-only", "templates/notes-under-test.yaml", "-f",
        Helm.VALUES.resolve("secured.yaml").toString())).rendered();
    assertThat(Manifests.parse(secured).one(ConfigMap.class).getData().get("NOTES.txt"))
        .contains("the Secret sextant-receiver-tokens (key tokens) holds the accepted ones")
        .contains("ROVER_BACKEND_AUTHENTICATION").contains("SATELLITE_GRPC_AUTHENTICATION")
        .contains("https://sextant-http.observability.svc.cluster.local:12800/graphql")
        .contains("gRPC clients need a certificate signed by its ca.crt")
        .contains("users in Secret sextant-users");
  }

  static Map<String, EnvVar> env(Container c) {
    return c.getEnv().stream().collect(Collectors.toMap(EnvVar::getName, Function.identity()));
  }
}
