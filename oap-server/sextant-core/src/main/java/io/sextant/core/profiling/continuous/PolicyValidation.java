package io.sextant.core.profiling.continuous;

import io.sextant.api.ebpf.ContinuousProfilingPolicy;
import io.sextant.api.ebpf.ContinuousProfilingPolicy.CheckItem;
import io.sextant.api.ebpf.ContinuousProfilingPolicy.Target;
import io.sextant.api.id.EntityIds;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * SkyWalking 10.1's checks of a policy ({@code ContinuousProfilingMutationService}), in its order and
 * with its messages, plus Sextant's bounds: the service id must be one (Rover is answered with the
 * service name it encodes), at most {@value #MAX_URIS} URIs per monitor and {@value #MAX_TEXT}
 * characters per threshold, URI or regex.
 */
final class PolicyValidation {
  static final int MAX_URIS = 100;
  static final int MAX_TEXT = 1000;

  private PolicyValidation() {}

  /** Why the policy is refused, or empty when it may be stored. */
  static Optional<String> check(String serviceId, List<Target> targets) {
    if (serviceId == null || serviceId.isEmpty()) {
      return Optional.of("the service id cannot be empty");
    }
    try {
      EntityIds.parseServiceId(serviceId);
    } catch (IllegalArgumentException e) {
      return Optional.of(e.getMessage());
    }
    Set<String> targetTypes = new HashSet<>();
    for (Target target : targets) {
      String targetType = target.targetType();
      if (!ContinuousProfilingPolicy.TARGET_TYPES.contains(targetType)) {
        return Optional.of("unknown target type: " + targetType);
      }
      if (!targetTypes.add(targetType)) {
        return Optional.of("contains multiple same target type: " + targetType);
      }
      Set<String> monitorTypes = new HashSet<>();
      for (CheckItem item : target.checkItems()) {
        if (!ContinuousProfilingPolicy.MONITOR_TYPES.contains(item.type())) {
          return Optional.of("unknown monitor type " + item.type() + " in " + targetType);
        }
        if (!monitorTypes.add(item.type())) {
          return Optional.of("contains multiple same monitor type " + item.type() + " in " + targetType);
        }
        String itemError = checkItem(item);
        if (itemError != null) {
          return Optional.of("check " + item.type() + " in " + targetType + " error: " + itemError);
        }
      }
    }
    return Optional.empty();
  }

  private static String checkItem(CheckItem item) {
    if (item.period() <= 0) {
      return "period must bigger than zero";
    }
    if (item.count() < 0) {
      return "count must bigger than zero";
    }
    if (item.count() > item.period()) {
      return "count must be small than period";
    }
    String bounds = checkBounds(item);
    if (bounds != null) {
      return bounds;
    }
    int threshold;
    try {
      threshold = Integer.parseInt(item.threshold());
    } catch (NumberFormatException e) {
      return "parsing threshold error";
    }
    return switch (item.type()) {
      case "PROCESS_CPU" -> threshold < 0 || threshold > 100 ? "the process CPU percent should in [0-100]" : null;
      case "PROCESS_THREAD_COUNT" -> threshold < 0 ? "the process thread count must bigger than zero" : null;
      case "SYSTEM_LOAD" -> threshold < 0 ? "the system load must bigger than zero" : null;
      case "HTTP_ERROR_RATE" -> threshold < 0 || threshold > 100 ? "the HTTP error rate should in [0-100]" : null;
      case "HTTP_AVG_RESPONSE_TIME" ->
          threshold < 0 ? "the HTTP average response time must bigger than zero" : null;
      default -> "unknown monitor type";
    };
  }

  private static String checkBounds(CheckItem item) {
    if (item.threshold() == null || item.threshold().length() > MAX_TEXT) {
      return "parsing threshold error";
    }
    if (item.uriList() != null) {
      if (item.uriList().size() > MAX_URIS) {
        return "at most " + MAX_URIS + " URIs, got " + item.uriList().size();
      }
      for (String uri : item.uriList()) {
        if (uri.length() > MAX_TEXT) {
          return "a URI is longer than " + MAX_TEXT + " characters";
        }
      }
    }
    if (item.uriRegex() != null && item.uriRegex().length() > MAX_TEXT) {
      return "the URI regex is longer than " + MAX_TEXT + " characters";
    }
    return null;
  }
}
