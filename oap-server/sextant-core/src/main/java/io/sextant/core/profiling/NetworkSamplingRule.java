package io.sextant.core.profiling;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * One rule of {@code createEBPFNetworkProfiling}'s {@code samplings}: which HTTP exchanges Rover
 * samples. Null integers are absent. Kept in the task as the extension config JSON Rover reads (the
 * names of SkyWalking's {@code EBPFProfilingTaskExtensionConfig}).
 */
public record NetworkSamplingRule(String uriRegex, Integer minDuration, boolean when4xx, boolean when5xx,
    boolean requireCompleteRequest, Integer maxRequestSize, boolean requireCompleteResponse,
    Integer maxResponseSize) {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** SkyWalking's check of one rule; null when valid, else its error text. */
  String problem() {
    if (minDuration != null && minDuration < 0) {
      return "the min duration must bigger or equals zero";
    }
    if (!requireCompleteRequest && !requireCompleteResponse) {
      return "please collect at least one of request or response";
    }
    if (maxRequestSize != null && maxRequestSize <= 0) {
      return "the max request size must bigger than zero";
    }
    if (maxResponseSize != null && maxResponseSize <= 0) {
      return "the max response size must bigger than zero";
    }
    return null;
  }

  /** The extension config JSON Rover reads, or {@code ""} when there are no rules. */
  static String extensionConfigJson(List<NetworkSamplingRule> rules) {
    if (rules.isEmpty()) {
      return "";
    }
    ObjectNode root = JSON.createObjectNode();
    ArrayNode samplings = root.putArray("NetworkSamplings");
    for (NetworkSamplingRule r : rules) {
      ObjectNode rule = samplings.addObject();
      if (r.uriRegex() != null) {
        rule.put("URIRegex", r.uriRegex());
      }
      if (r.minDuration() != null) {
        rule.put("MinDuration", r.minDuration());
      }
      rule.put("When4xx", r.when4xx());
      rule.put("When5xx", r.when5xx());
      ObjectNode settings = rule.putObject("Settings");
      settings.put("RequireCompleteRequest", r.requireCompleteRequest());
      if (r.maxRequestSize() != null) {
        settings.put("MaxRequestSize", r.maxRequestSize());
      }
      settings.put("RequireCompleteResponse", r.requireCompleteResponse());
      if (r.maxResponseSize() != null) {
        settings.put("MaxResponseSize", r.maxResponseSize());
      }
    }
    return root.toString();
  }
}
