package io.sextant.core.profiling.continuous;

import io.sextant.api.ebpf.ContinuousProfilingPolicy.CheckItem;
import java.util.List;

/** {@code ContinuousProfilingPolicyTarget}: one target of a service's policy and its recent triggers. */
public record PolicyTarget(String type, List<CheckItem> checkItems, int triggeredCount, Long lastTriggerTimestamp) {}
