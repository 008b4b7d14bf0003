package io.sextant.receiver.mesh;

/**
 * Per-message limits. A message over {@code maxMessageBytes}, a string over {@code
 * maxStringLength}, more than {@code maxProperties} instance properties, or more than {@code
 * maxRecordsPerMessage} records is rejected and counted; the stream goes on.
 */
public record MeshReceiverLimits(
    int maxMessageBytes, int maxStringLength, int maxProperties, int maxRecordsPerMessage) {}
