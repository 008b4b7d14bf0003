package io.sextant.receiver.ebpf.continuous;

import static io.sextant.api.config.ConfigKey.integer;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import io.sextant.receiver.ebpf.EbpfReceiverConfig;
import java.util.List;

/**
 * Bounds of Rover's continuous-profiling calls ({@code receiver.ebpf.*}). Each collector keeps the
 * policies it read for {@code continuousPolicyCacheSeconds} (SkyWalking's {@code
 * continuousPolicyCacheTimeout}, 60 s), so a changed policy reaches a Rover at most that long plus
 * Rover's own check interval after it was set; at most {@code maxCachedPolicies} services are kept.
 */
public record ContinuousConfig(int policyCacheSeconds, int maxCachedPolicies, int maxPolicyQueryServices, int maxCauses,
    int maxTaskSeconds, int maxSamplingRegexes) {
  private static final String P = EbpfReceiverConfig.P;

  public static final List<ConfigKey> KEYS = List.of(
      integer(P + "continuousPolicyCacheSeconds", 60, 0, 3600,
          "seconds a collector reuses the continuous-profiling policies it read (0: read every poll)"),
      integer(P + "maxCachedPolicies", 100_000, 1, 10_000_000,
          "services whose continuous-profiling policy a collector keeps; the oldest are forgotten"),
      integer(P + "maxPolicyQueryServices", 10_000, 1, 1_000_000,
          "services in one Rover policy query; past it INVALID_ARGUMENT"),
      integer(P + "maxContinuousCauses", 100, 1, 10_000,
          "causes in one continuous-profiling report; past it INVALID_ARGUMENT"),
      integer(P + "maxContinuousTaskSeconds", 3600, 1, 86_400,
          "longest continuous-profiling task Rover may report; longer is INVALID_ARGUMENT"),
      integer(P + "maxSamplingRegexes", 100, 0, 10_000,
          "URI regexes of one continuous network-profiling report; past it INVALID_ARGUMENT"));

  public static ContinuousConfig load(Settings s) {
    return new ContinuousConfig(s.integer(P + "continuousPolicyCacheSeconds"), s.integer(P + "maxCachedPolicies"),
        s.integer(P + "maxPolicyQueryServices"), s.integer(P + "maxContinuousCauses"),
        s.integer(P + "maxContinuousTaskSeconds"), s.integer(P + "maxSamplingRegexes"));
  }
}
