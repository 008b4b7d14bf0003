package io.sextant.api.log;

import java.util.List;

/**
 * A log as SkyWalking's query protocol shows it ({@code Log}): a failed request an Envoy proxy
 * logged, kept with its service, instance and (for the server side) endpoint names, its time, the
 * entry itself as {@code content} ({@code contentType} {@code JSON} or {@code TEXT}) and tags such as
 * {@code status.code} and {@code response.flag} (Envoy's short codes, e.g. {@code UF,URX}).
 */
public record LogEntry(String service, String instance, String endpoint, long timeMillis, String contentType,
    String content, List<Tag> tags) {
  public LogEntry {
    tags = List.copyOf(tags);
  }

  /** One {@code key=value} tag of a log. */
  public record Tag(String key, String value) {}
}
