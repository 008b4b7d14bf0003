package io.sextant.api.model;

import java.util.Map;

/** What every normalised record (L7 call or L4 flow) says about who talked to whom, and when. */
public sealed interface MeshRecord permits CallRecord, FlowRecord, SampleRecord {
  long startTimeMillis();

  String sourceService();

  String sourceInstance();

  String destService();

  String destInstance();

  DetectPoint detectPoint();

  Layer layer();

  long internalRequestLatencyNanos();

  long internalResponseLatencyNanos();

  Map<String, String> sourceInstanceProperties();

  Map<String, String> destInstanceProperties();
}
