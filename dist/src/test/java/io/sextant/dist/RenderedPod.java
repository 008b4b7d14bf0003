package io.sextant.dist;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a collector's container gets from the rendered chart, laid out on this machine: its ConfigMap
 * written to a directory standing for the mount path, and its environment with paths under the
 * mount moved there and the pod's name filled in as the downward API would.
 */
final class RenderedPod {
  private RenderedPod() {}

  /** The container's environment; its ConfigMap files are written under {@code mounts/config}. */
  static Map<String, String> environment(Manifests m, Path mounts, String podName) throws IOException {
    Container c = m.one(Deployment.class).getSpec().getTemplate().getSpec().getContainers().get(0);
    ConfigMap config = m.one(ConfigMap.class);
    VolumeMount configMount = c.getVolumeMounts().stream().filter(v -> v.getName().equals("config")).findFirst()
        .orElseThrow();
    Path configDir = mounts.resolve("config");
    Files.createDirectories(configDir);
    for (Map.Entry<String, String> file : config.getData().entrySet()) {
      Files.writeString(configDir.resolve(file.getKey()), file.getValue());
    }
    Map<String, String> env = new LinkedHashMap<>();
    for (EnvVar e : c.getEnv()) {
      String value;
      if (e.getValueFrom() == null) {
        value = e.getValue();
      } else if (e.getValueFrom().getFieldRef() != null
          && e.getValueFrom().getFieldRef().getFieldPath().equals("metadata.name")) {
        value = podName;
      } else {
        throw new AssertionError("the chart renders an env source this test cannot stand in for: " + e);
      }
      if (value.startsWith(configMount.getMountPath() + "/")) {
        value = configDir.resolve(value.substring(configMount.getMountPath().length() + 1)).toString();
      }
      env.put(e.getName(), value);
    }
    return env;
  }
}
