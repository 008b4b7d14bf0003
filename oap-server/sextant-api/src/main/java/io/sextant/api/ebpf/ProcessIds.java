package io.sextant.api.ebpf;

import io.sextant.api.id.EntityIds;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Process ids exactly as SkyWalking computes them ({@code IDManager.ProcessID}), so every collector,
 * and every restart, gives a process the same id, and Rover and the UI can pass ids back: the hex
 * SHA-256 of {@code "<processName>_<instanceId>"}. A process relation id is {@code source-dest}.
 */
public final class ProcessIds {
  /** The virtual process standing for the local side of a connection Rover could not attribute. */
  public static final String VIRTUAL_LOCAL = "UNKNOWN_LOCAL";

  /** The virtual process standing for a remote peer Rover (and Kubernetes) could not name. */
  public static final String VIRTUAL_REMOTE = "UNKNOWN_REMOTE";

  /** SkyWalking's name for an entity whose name is blank. */
  private static final String BLANK_NAME = "_blank";

  private ProcessIds() {}

  public static String processId(String instanceId, String processName) {
    String name = processName == null || processName.isBlank() ? BLANK_NAME : processName;
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(sha.digest((name + "_" + instanceId).getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  /** The id of a process named {@code processName} under the (normal) service's instance. */
  public static String processId(String serviceName, String instanceName, String processName) {
    return processId(EntityIds.instanceId(EntityIds.serviceId(serviceName, true), instanceName), processName);
  }

  public static String relationId(String sourceProcessId, String destProcessId) {
    return EntityIds.relationId(sourceProcessId, destProcessId);
  }
}
