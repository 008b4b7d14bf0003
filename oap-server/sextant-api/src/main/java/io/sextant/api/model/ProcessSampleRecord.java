package io.sextant.api.model;


/**
 * One value of SkyWalking Rover's meters, already mapped by the rule table to a metric name: a
 * process-relation value ({@code scope} PROCESS_RELATION, from {@code clientProcessId} to {@code
 * serverProcessId}, reported by the {@code detectPoint} side) or a process value ({@code scope}
 * PROCESS, {@code clientProcessId} is the process, {@code serverProcessId} empty). {@code service}
 * and {@code instance} name the reporting instance. {@code label} is the value of the metric's label
 * ({@code code}, {@code uri}) or empty; {@code bucket} is the histogram bucket the count {@code
 * value} belongs to (0 for other metrics); {@code component} is SkyWalking's component name of the
 * connection (http, https, tls, tcp), empty for processes.
 */
public record ProcessSampleRecord(
    long startTimeMillis,
    Scope scope,
    String service,
    String instance,
    Layer layer,
    DetectPoint detectPoint,
    String clientProcessId,
    String serverProcessId,
    String component,
    String metric,
    String label,
    long bucket,
    long value)
    implements Observation {}
