package io.sextant.api.model;

import java.util.Set;

/**
 * Every layer name of SkyWalking 10.1 ({@code org.apache.skywalking.oap.server.core.analysis.Layer}),
 * which agents may report; {@link Layer} holds only the ones Sextant itself assigns.
 */
public final class SkyWalkingLayers {
  public static final Set<String> NAMES = Set.of("UNDEFINED", "MESH", "GENERAL", "OS_LINUX", "K8S", "FAAS",
      "MESH_CP", "MESH_DP", "DATABASE", "CACHE", "BROWSER", "SO11Y_OAP", "SO11Y_SATELLITE", "MQ",
      "VIRTUAL_DATABASE", "VIRTUAL_MQ", "VIRTUAL_GATEWAY", "K8S_SERVICE", "MYSQL", "VIRTUAL_CACHE", "POSTGRESQL",
      "APISIX", "AWS_EKS", "OS_WINDOWS", "AWS_S3", "AWS_DYNAMODB", "AWS_GATEWAY", "REDIS", "ELASTICSEARCH",
      "RABBITMQ", "MONGODB", "KAFKA", "PULSAR", "BOOKKEEPER", "NGINX", "ROCKETMQ", "CLICKHOUSE", "ACTIVEMQ",
      "CILIUM_SERVICE", "SO11Y_JAVA_AGENT");

  private SkyWalkingLayers() {}

  public static boolean isKnown(String name) {
    return NAMES.contains(name);
  }
}
