package io.sextant.receiver.ebpf.process;

import io.sextant.api.ebpf.ProcessIds;
import io.sextant.api.id.EntityIds;
import io.sextant.api.model.SkyWalkingLayers;
import io.sextant.api.storage.ProcessMeta;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.skywalking.apm.network.common.v3.KeyStringValuePair;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessEntityMetadata;

/**
 * Rover's process entities as Sextant stores them, with SkyWalking's facts: the process id is
 * {@link ProcessIds#processId}, the service is a normal one, a process supports eBPF profiling when
 * its property {@code support_ebpf_profiling} is {@code true}. Entities are checked first; a bad one
 * throws a {@link Refused} naming the reason.
 */
final class ProcessEntities {
  static final String SUPPORT_PROFILING = "support_ebpf_profiling";

  /** Why an entity is refused: a stable tag for the self-metrics and a message for Rover's log. */
  static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final String reason;

    Refused(String reason, String message) {
      super(message, null, false, false);
      this.reason = reason;
    }
  }

  private final int maxStringLength;

  ProcessEntities(int maxStringLength) {
    this.maxStringLength = maxStringLength;
  }

  /** Throws {@link Refused} when the entity or its properties cannot be stored. */
  void check(EBPFProcessEntityMetadata e, List<KeyStringValuePair> properties) {
    required("service", e.getServiceName());
    required("instance", e.getInstanceName());
    required("process", e.getProcessName());
    if (!SkyWalkingLayers.isKnown(e.getLayer())) {
      throw new Refused("unknown_layer", "unknown layer '" + e.getLayer() + "' of process " + e.getProcessName()
          + " (SkyWalking 10.1's layers only)");
    }
    for (String label : e.getLabelsList()) {
      bounded("label", label);
    }
    for (KeyStringValuePair p : properties) {
      bounded("property name", p.getKey());
      bounded("property value", p.getValue());
    }
  }

  private void required(String what, String value) {
    if (value.isEmpty()) {
      throw new Refused("missing_" + what, "a process entity needs a " + what + " name");
    }
    bounded(what + " name", value);
  }

  private void bounded(String what, String value) {
    if (value.length() > maxStringLength) {
      throw new Refused("string_too_long", what + " longer than " + maxStringLength + " characters: "
          + value.substring(0, Math.min(40, value.length())) + "…");
    }
  }

  static String serviceId(EBPFProcessEntityMetadata e) {
    return EntityIds.serviceId(e.getServiceName(), true);
  }

  static String instanceId(EBPFProcessEntityMetadata e) {
    return EntityIds.instanceId(serviceId(e), e.getInstanceName());
  }

  static String processId(EBPFProcessEntityMetadata e) {
    return ProcessIds.processId(instanceId(e), e.getProcessName());
  }

  /**
   * The process as one report or ping describes it at {@code minute}; {@code detectType} is empty
   * for a ping (it does not say), which the merge leaves as it was.
   */
  static ProcessMeta process(EBPFProcessEntityMetadata e, List<KeyStringValuePair> properties, String agentId,
      String detectType, long minute) {
    Map<String, String> props = new LinkedHashMap<>();
    properties.forEach(p -> props.put(p.getKey(), p.getValue()));
    return new ProcessMeta(processId(e), serviceId(e), instanceId(e), e.getProcessName(), e.getLayer(), agentId,
        detectType, e.getLabelsList(), props, "true".equals(props.get(SUPPORT_PROFILING)), minute, minute);
  }
}
