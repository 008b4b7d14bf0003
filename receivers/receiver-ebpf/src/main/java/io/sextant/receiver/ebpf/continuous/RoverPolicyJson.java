package io.sextant.receiver.ebpf.continuous;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sextant.api.ebpf.ContinuousProfilingPolicy;
import java.util.List;
import java.util.Optional;

/**
 * The {@code ServiceWithPolicyJSON} argument of the {@code ContinuousProfilingPolicyQuery} command,
 * as Rover 0.7 unmarshals it: an array of {@code {"ServiceName", "UUID", "Profiling": {<target>:
 * {<monitor>: {"Threshold", "Period", "Count", "URIList", "URIRegex"}}}}}. Fields SkyWalking leaves
 * null are left out (its Gson drops nulls): a service whose policy is gone is {@code
 * {"ServiceName": .., "UUID": ""}}, which makes Rover drop the policy it holds.
 */
final class RoverPolicyJson {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One service to tell Rover about: its policy, or none any more. */
  record Update(String serviceName, Optional<ContinuousProfilingPolicy> policy) {}

  private RoverPolicyJson() {}

  static String of(List<Update> updates) {
    ArrayNode array = JSON.createArrayNode();
    for (Update u : updates) {
      ObjectNode service = array.addObject();
      service.put("ServiceName", u.serviceName());
      service.put("UUID", u.policy().map(ContinuousProfilingPolicy::uuid).orElse(""));
      u.policy().ifPresent(p -> {
        ObjectNode profiling = service.putObject("Profiling");
        for (ContinuousProfilingPolicy.Target t : p.targets()) {
          ObjectNode checks = profiling.putObject(t.targetType());
          for (ContinuousProfilingPolicy.CheckItem i : t.checkItems()) {
            ObjectNode item = checks.putObject(i.type());
            item.put("Threshold", i.threshold());
            item.put("Period", i.period());
            item.put("Count", i.count());
            if (i.uriList() != null) {
              ArrayNode uris = item.putArray("URIList");
              i.uriList().forEach(uris::add);
            }
            if (i.uriRegex() != null) {
              item.put("URIRegex", i.uriRegex());
            }
          }
        }
      });
    }
    try {
      return JSON.writeValueAsString(array);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a tree of strings and numbers always serializes", e);
    }
  }
}
