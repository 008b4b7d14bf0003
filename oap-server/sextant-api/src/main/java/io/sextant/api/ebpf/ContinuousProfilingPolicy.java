package io.sextant.api.ebpf;

import java.util.List;

/**
 * A service's continuous-profiling policy, as SkyWalking's {@code ContinuousProfilingPolicy} keeps
 * it: for each profiling target ({@code ON_CPU}, {@code OFF_CPU}, {@code NETWORK}) the monitors
 * Rover checks ({@code PROCESS_CPU}, ...) with their threshold, window ({@code period} seconds, of
 * which {@code count} must cross) and, for HTTP monitors, the URIs. {@code uuid} names this content
 * (core computes it when a policy is set): Rover sends back the uuid it holds and is answered only
 * when it differs. A policy without targets switches continuous profiling off for the service
 * (SkyWalking stores it the same way).
 */
public record ContinuousProfilingPolicy(String serviceId, String uuid, List<Target> targets) {
  /** SkyWalking's {@code ContinuousProfilingTargetType}, in its order. */
  public static final List<String> TARGET_TYPES = List.of(ProfilingTask.ON_CPU, ProfilingTask.OFF_CPU,
      ProfilingTask.NETWORK);

  /** SkyWalking's {@code ContinuousProfilingMonitorType}, in its order. */
  public static final List<String> MONITOR_TYPES = List.of("PROCESS_CPU", "PROCESS_THREAD_COUNT", "SYSTEM_LOAD",
      "HTTP_ERROR_RATE", "HTTP_AVG_RESPONSE_TIME");

  public ContinuousProfilingPolicy {
    targets = List.copyOf(targets);
  }

  /** What to profile when any of {@code checkItems} fires. */
  public record Target(String targetType, List<CheckItem> checkItems) {
    public Target {
      checkItems = List.copyOf(checkItems);
    }
  }

  /**
   * One monitor. {@code uriList} and {@code uriRegex} are null when not given (Rover's JSON then
   * leaves them out, as SkyWalking's does).
   */
  public record CheckItem(String type, String threshold, int period, int count, List<String> uriList,
      String uriRegex) {
    public CheckItem {
      uriList = uriList == null ? null : List.copyOf(uriList);
    }
  }
}
