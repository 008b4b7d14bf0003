package io.sextant.api.model;


/**
 * One value of a proxy's own statistics (Envoy's metrics service), already mapped to a SkyWalking
 * metric name. An instance sample is reported as the destination side ({@code destService},
 * {@code destInstance}, detect point SERVER); a relation sample as the client side from {@code
 * sourceService} to {@code destService}. {@code label} is the value of the metric's label (e.g. the
 * upstream cluster) or empty.
 */
public record SampleRecord(
    long startTimeMillis,
    String sourceService,
    String sourceInstance,
    String destService,
    String destInstance,
    DetectPoint detectPoint,
    Layer layer,
    String metric,
    String label,
    long value)
    implements MeshRecord {}
