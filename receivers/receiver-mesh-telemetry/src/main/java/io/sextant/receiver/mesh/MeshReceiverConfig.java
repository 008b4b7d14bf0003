package io.sextant.receiver.mesh;

/**
 * Per-message limits. A string over {@code maxStringLength}, more than {@code maxProperties}
 * instance properties, or more than {@code maxRecordsPerMessage} records is rejected and counted;
 * the stream goes on. Message bytes are bounded by the server's wire limit.
 */
public record MeshReceiverLimits(int maxStringLength, int maxProperties, int maxRecordsPerMessage) {}
