package io.sextant.api.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sextant.api.id.EntityIds;
import io.sextant.api.storage.StoredRecord;
import java.util.List;
import org.junit.jupiter.api.Test;

class LogRecordsTest {
  private static final LogEntry LOG = new LogEntry("reviews.default", "reviews-v1-0", "GET:/reviews/{id}", 1000L,
      "JSON", "{\"response\":{\"responseCode\":503}}",
      List.of(new LogEntry.Tag("status.code", "503"), new LogEntry.Tag("response.flag", "UF,URX")));

  @Test
  void aLogIsFiledUnderItsServiceWithATagPerFilterAndComesBackWhole() {
    StoredRecord r = LogRecords.toRecord("abc", LOG);
    String service = EntityIds.serviceId("reviews.default", true);

    assertThat(r.kind()).isEqualTo("log");
    assertThat(r.entityId()).isEqualTo(service);
    assertThat(r.tags()).containsExactly("instance=" + EntityIds.instanceId(service, "reviews-v1-0"),
        "endpoint=" + EntityIds.endpointId(service, "GET:/reviews/{id}"), "t:status.code=503",
        "t:response.flag=UF,URX", "t:response.flag=UF", "t:response.flag=URX");
    assertThat(LogRecords.fromRecord(r)).isEqualTo(LOG);
  }

  @Test
  void aDamagedBodyIsRefused() {
    StoredRecord r = LogRecords.toRecord("abc", LOG);
    byte[] body = r.body().clone();
    body[0] = 9;
    assertThatThrownBy(() -> LogRecords.decode(body)).hasMessageContaining("version 9");
    assertThatThrownBy(() -> LogRecords.decode(new byte[] {1, 0, 0, 0, 99})).hasMessageContaining("corrupt");
  }
}
