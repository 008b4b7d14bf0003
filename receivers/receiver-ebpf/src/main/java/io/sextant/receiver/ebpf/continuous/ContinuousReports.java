package io.sextant.receiver.ebpf.continuous;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sextant.api.ebpf.ProcessIds;
import io.sextant.api.ebpf.ProfilingTask;
import io.sextant.api.id.EntityIds;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousProfilingCause;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousProfilingReport;

/**
 * Turns Rover's {@code reportProfilingTask} into the {@code CONTINUOUS_PROFILING} task SkyWalking 10.1
 * stores ({@code ContinuousProfilingServiceHandler}): for the one process named by service, instance
 * and process name, starting now, for the duration Rover chose, with the causes as Rover sent them;
 * a network task carries one sampling rule per URI regex (any duration, 4xx and 5xx, complete
 * requests and responses) in SkyWalking's extension JSON. Bad input is a {@link Refused} naming
 * its reason.
 */
final class ContinuousReports {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A report refused: {@code reason} is the self-metric's label, the message goes to Rover. */
  static final class Refused extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    final String reason;

    Refused(String reason, String message) {
      super(message);
      this.reason = reason;
    }
  }

  private final int maxStringLength;
  private final ContinuousConfig config;

  ContinuousReports(int maxStringLength, ContinuousConfig config) {
    this.maxStringLength = maxStringLength;
    this.config = config;
  }

  ProfilingTask toTask(ContinuousProfilingReport r, long now) {
    String service = name("service", r.getServiceName());
    String instance = name("instance", r.getInstanceName());
    String process = name("process", r.getProcessName());
    String targetType = switch (r.getTargetTaskCase()) {
      case ONCPU -> ProfilingTask.ON_CPU;
      case OFFCPU -> ProfilingTask.OFF_CPU;
      case NETWORK -> ProfilingTask.NETWORK;
      case TARGETTASK_NOT_SET ->
          throw new Refused("unknown_target", "the continuous profiling task type cannot recognized");
    };
    if (r.getDuration() <= 0 || r.getDuration() > config.maxTaskSeconds()) {
      throw new Refused("bad_duration", "duration must be in [1, " + config.maxTaskSeconds() + "] seconds, got "
          + r.getDuration());
    }
    if (r.getCausesCount() > config.maxCauses()) {
      throw new Refused("too_many_causes", "at most " + config.maxCauses() + " causes, got " + r.getCausesCount());
    }
    List<ProfilingTask.Cause> causes = new ArrayList<>();
    for (ContinuousProfilingCause c : r.getCausesList()) {
      causes.add(cause(c));
    }
    String extension = targetType.equals(ProfilingTask.NETWORK) ? networkSamplings(r.getNetwork()
        .getSamplingURIRegexesList()) : "";
    String serviceId = EntityIds.serviceId(service, true);
    String instanceId = EntityIds.instanceId(serviceId, instance);
    String processId = ProcessIds.processId(instanceId, process);
    return new ProfilingTask(taskId(serviceId, processId, targetType, now), serviceId, instanceId, processId,
        List.of(), targetType, ProfilingTask.CONTINUOUS_PROFILING, now, r.getDuration(), now, now, extension,
        causes);
  }

  private String name(String what, String value) {
    if (value.isEmpty()) {
      throw new Refused("missing_name", what + " name is empty");
    }
    return bounded(what + " name", value);
  }

  private String bounded(String what, String value) {
    if (value.length() > maxStringLength) {
      throw new Refused("string_too_long", what + " is longer than " + maxStringLength + " characters");
    }
    return value;
  }

  private ProfilingTask.Cause cause(ContinuousProfilingCause c) {
    String type = switch (c.getType()) {
      case ProcessCPU -> "PROCESS_CPU";
      case ProcessThreadCount -> "PROCESS_THREAD_COUNT";
      case SystemLoad -> "SYSTEM_LOAD";
      case HTTPErrorRate -> "HTTP_ERROR_RATE";
      case HTTPAvgResponseTime -> "HTTP_AVG_RESPONSE_TIME";
      case UNRECOGNIZED -> throw new Refused("unknown_monitor_type", "unknown monitor type " + c.getTypeValue());
    };
    return switch (c.getCauseCase()) {
      case SINGLEVALUE -> new ProfilingTask.Cause(type, "", "", c.getSingleValue().getThreshold(),
          c.getSingleValue().getCurrent());
      case URI -> switch (c.getUri().getUriCase()) {
        case REGEX -> new ProfilingTask.Cause(type, bounded("URI regex", c.getUri().getRegex()), "",
            c.getUri().getThreshold(), c.getUri().getCurrent());
        case PATH -> new ProfilingTask.Cause(type, "", bounded("URI path", c.getUri().getPath()),
            c.getUri().getThreshold(), c.getUri().getCurrent());
        case URI_NOT_SET -> throw new Refused("bad_cause", "the uri case not set");
      };
      case CAUSE_NOT_SET -> throw new Refused("bad_cause", "cause of " + type + " has neither singleValue nor uri");
    };
  }

  /** SkyWalking's {@code EBPFProfilingTaskExtension} JSON: one sampling rule per regex. */
  private String networkSamplings(List<String> regexes) {
    if (regexes.size() > config.maxSamplingRegexes()) {
      throw new Refused("too_many_regexes", "at most " + config.maxSamplingRegexes() + " sampling URI regexes, got "
          + regexes.size());
    }
    ObjectNode extension = JSON.createObjectNode();
    ArrayNode samplings = extension.putArray("networkSamplings");
    for (String regex : regexes) {
      ObjectNode rule = samplings.addObject();
      rule.put("uriRegex", bounded("sampling URI regex", regex));
      rule.put("minDuration", 0);
      rule.put("when4xx", true);
      rule.put("when5xx", true);
      ObjectNode settings = rule.putObject("settings");
      settings.put("requireCompleteRequest", true);
      settings.put("requireCompleteResponse", true);
    }
    try {
      return JSON.writeValueAsString(extension);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a tree of strings and numbers always serializes", e);
    }
  }

  /**
   * Deterministic, so a report stored twice (a retry racing its first attempt on another thread)
   * is one task: the process, the target and the start.
   */
  static String taskId(String serviceId, String processId, String targetType, long startTime) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest((serviceId + "|" + processId + "|" + targetType
          + "|" + startTime).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }
}
