package io.sextant.receiver.ebpf.meter;

import java.util.ArrayList;
import java.util.List;
import org.apache.skywalking.apm.network.language.agent.v3.MeterData;

/**
 * One batch of Rover's meters, as SkyWalking's {@code MeterProcessor} reads it: the meters of a
 * {@code collect} stream or of one {@code MeterDataCollection}; the reporting service, instance and
 * time are the last non-empty ones any message carried (Rover puts them on the first).
 */
public final class MeterBatch {
  final List<MeterData> meters = new ArrayList<>();
  String service = "";
  String instance = "";
  long timestamp;

  public void add(MeterData data) {
    meters.add(data);
    if (!data.getService().isEmpty()) {
      service = data.getService();
    }
    if (!data.getServiceInstance().isEmpty()) {
      instance = data.getServiceInstance();
    }
    if (data.getTimestamp() > 0) {
      timestamp = data.getTimestamp();
    }
  }

  int size() {
    return meters.size();
  }
}
