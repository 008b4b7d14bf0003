package io.sextant.api.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sextant.api.storage.StoredRecord;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EventRecordsTest {
  private static Event event(String type, String message, Map<String, String> parameters, long start, long end) {
    return new Event("u-1", "shop", "shop-1", "GET:/", "Upgrade", type, message, parameters, start, end, "GENERAL");
  }

  @Test
  void anEventComesBackFromItsRecordAsItWent() {
    Map<String, String> parameters = new LinkedHashMap<>();
    parameters.put("z", "last letter");
    parameters.put("a", "ünïcödé ✓");
    Event e = event("Error", "x".repeat(70_000), parameters, 5, 9);

    StoredRecord r = EventRecords.toRecord(e, 5);

    assertThat(r.kind()).isEqualTo("event");
    assertThat(r.id()).isEqualTo("u-1");
    assertThat(r.timeMillis()).isEqualTo(5);
    assertThat(r.tags()).contains("uuid=u-1", "service=shop", "instance=shop-1", "endpoint=GET:/", "name=Upgrade",
        "type=Error", "layer=GENERAL");
    Event back = EventRecords.fromRecord(r);
    assertThat(back).isEqualTo(e);
    assertThat(back.parameters().keySet()).containsExactly("z", "a");
  }

  @Test
  void aCorruptBodyIsRefusedWithAReason() {
    StoredRecord r = new StoredRecord("event", "u", "", 1, java.util.List.of(), new byte[] {1, 0, 0, 0, 9});
    assertThatThrownBy(() -> EventRecords.fromRecord(r)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("corrupt event record");
  }

  @Test
  void aLaterReportUpdatesTimesTypeMessageAndParametersOnly() {
    Event start = event("Normal", "starting", Map.of("from", "1"), 100, 0);
    Event end = new Event("u-1", "other", "", "", "Other", "Error", "", Map.of(), 0, 200, "K8S");

    Event merged = start.mergedWith(end);

    assertThat(merged).isEqualTo(new Event("u-1", "shop", "shop-1", "GET:/", "Upgrade", "Error", "starting",
        Map.of("from", "1"), 100, 200, "GENERAL"));
    assertThat(start.mergedWith(event("Normal", "again", Map.of(), 300, 0)).startTime())
        .as("a start time, once known, stays").isEqualTo(100);
  }
}
