package io.sextant.core.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sextant.api.id.EntityIds;
import io.sextant.api.log.LogEntry;
import io.sextant.api.log.LogRecords;
import io.sextant.storage.memory.MemoryStorage;
import io.sextant.storage.memory.MemoryStorageConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Logs written as the ALS receiver writes them, read back from a real (memory) record store with
 * queryLogs' filters: service, instance, endpoint, tags, keywords, paging and order.
 */
class LogQueriesTest {
  private static final long T0 = 1_795_000_000_000L;
  private final MemoryStorage storage = new MemoryStorage(new MemoryStorageConfig(1_000_000));
  private final LogQueries logs = new LogQueries(storage);
  private final String reviews = EntityIds.serviceId("reviews", true);
  private final String ratings = EntityIds.serviceId("ratings", true);

  LogQueriesTest() {
    storage.records().write(List.of(
        record("a", new LogEntry("reviews", "reviews-1", "GET:/reviews", T0 + 1000, "JSON",
            "{\"path\":\"/reviews\",\"upstream\":\"Ratings\"}", List.of(tag("status.code", "503"),
                tag("response.flag", "UF,URX")))),
        record("b", new LogEntry("reviews", "reviews-2", "", T0 + 2000, "JSON",
            "{\"path\":\"/health\"}", List.of(tag("status.code", "404")))),
        record("c", new LogEntry("reviews", "reviews-1", "GET:/reviews", T0 + 3000, "TEXT",
            "GET /reviews 500 upstream=ratings timeout", List.of(tag("status.code", "500")))),
        record("d", new LogEntry("ratings", "ratings-1", "", T0 + 4000, "TEXT",
            "POST /ratings 0 UH no healthy upstream", List.of(tag("response.flag", "UH"))))));
  }

  @Test
  void newestFirstAcrossServicesWhenNothingIsFiltered() {
    assertThat(contents(condition(null, null, null))).containsExactly("d", "c", "b", "a");
    // "" and "0" are no filter, as SkyWalking's Elasticsearch DAO (isNotEmpty) and schema say.
    assertThat(contents(condition("", "", ""))).containsExactly("d", "c", "b", "a");
    assertThat(contents(condition("0", "0", "0"))).containsExactly("d", "c", "b", "a");
  }

  @Test
  void filtersByServiceInstanceAndEndpoint() {
    String instance = EntityIds.instanceId(reviews, "reviews-1");
    String endpoint = EntityIds.endpointId(reviews, "GET:/reviews");
    assertThat(contents(condition(reviews, null, null))).containsExactly("c", "b", "a");
    assertThat(contents(condition(ratings, null, null))).containsExactly("d");
    assertThat(contents(condition(reviews, instance, null))).containsExactly("c", "a");
    assertThat(contents(condition(null, instance, null))).containsExactly("c", "a");
    assertThat(contents(condition(null, null, endpoint))).containsExactly("c", "a");
    assertThat(contents(condition(null, EntityIds.instanceId(reviews, "reviews-2"), endpoint))).isEmpty();
    // An instance of another service matches nothing.
    assertThat(contents(condition(ratings, instance, null))).isEmpty();
    assertThatThrownBy(() -> logs.logs(condition(null, "nonsense", null))).hasMessageContaining("malformed id");
  }

  @Test
  void theLogsAnswerWhatWasLogged() {
    LogEntry a = logs.logs(condition(null, null, EntityIds.endpointId(reviews, "GET:/reviews"))).get(1);
    assertThat(a).isEqualTo(new LogEntry("reviews", "reviews-1", "GET:/reviews", T0 + 1000, "JSON",
        "{\"path\":\"/reviews\",\"upstream\":\"Ratings\"}", List.of(tag("status.code", "503"),
            tag("response.flag", "UF,URX"))));
  }

  @Test
  void tagsMustAllMatchTrimmedAndSingleFlagsMatchTheirJoinedLog() {
    assertThat(contents(withTags(tag("status.code", "503")))).containsExactly("a");
    assertThat(contents(withTags(tag(" response.flag ", " URX ")))).containsExactly("a");
    assertThat(contents(withTags(tag("response.flag", "UF,URX")))).containsExactly("a");
    assertThat(contents(withTags(tag("response.flag", "UH")))).containsExactly("d");
    assertThat(contents(withTags(tag("status.code", "503"), tag("response.flag", "UH")))).isEmpty();
    // A tag without a value matches the logs carrying the key.
    assertThat(contents(withTags(tag("response.flag", null)))).containsExactly("d", "a");
    assertThat(contents(withTags(tag("response.flag", "")))).containsExactly("d", "a");
    assertThatThrownBy(() -> logs.logs(withTags(tag(" ", "x")))).hasMessage("a log tag needs a key");
  }

  @Test
  void keywordsAreCaseInsensitiveSubstringsAllRequiredNoneExcluded() {
    assertThat(contents(keywords(List.of("RATINGS"), List.of()))).containsExactly("d", "c", "a");
    assertThat(contents(keywords(List.of("ratings", "timeout"), List.of()))).containsExactly("c");
    assertThat(contents(keywords(List.of("ratings"), List.of("Timeout")))).containsExactly("d", "a");
    assertThat(contents(keywords(List.of(""), List.of("")))).containsExactly("d", "c", "b", "a");
    assertThat(contents(keywords(List.of(), List.of("/")))).isEmpty();
  }

  @Test
  void pagesAndAscendingOrder() {
    assertThat(contents(page(1, 3, false))).containsExactly("d", "c", "b");
    assertThat(contents(page(2, 3, false))).containsExactly("a");
    assertThat(contents(page(3, 3, false))).isEmpty();
    assertThat(contents(page(0, 2, false))).containsExactly("d", "c"); // pageNum 0 reads as 1
    assertThat(contents(page(1, 0, false))).isEmpty();
    assertThat(contents(page(1, 3, true))).containsExactly("a", "b", "c");
    assertThat(contents(page(2, 3, true))).containsExactly("d");
    // With keywords the page is taken after matching.
    LogQueries.Condition byKeyword = new LogQueries.Condition(null, null, null, T0, T0 + 10_000, null,
        List.of("reviews"), null, false, 2, 1);
    assertThat(contents(byKeyword)).containsExactly("a");
    assertThatThrownBy(() -> logs.logs(page(101, 100, false)))
        .hasMessage("pageNum × pageSize must not exceed 10000");
    assertThatThrownBy(() -> logs.logs(page(1, -1, false))).hasMessageContaining("paging needs");
  }

  @Test
  void theWindowIsInclusive() {
    LogQueries.Condition window = new LogQueries.Condition(null, null, null, T0 + 2000, T0 + 3000, null, null,
        null, false, 1, 10);
    assertThat(contents(window)).containsExactly("c", "b");
    assertThatThrownBy(() -> logs.logs(new LogQueries.Condition(null, null, null, T0 + 1, T0, null, null, null,
        false, 1, 10))).hasMessageContaining("start must not be after its end");
  }

  @Test
  void tagKeysAndValuesOfTheWindow() {
    assertThat(logs.tagKeys(T0, T0 + 10_000)).containsExactly("level", "status.code", "response.flag");
    assertThat(logs.tagKeys(T0 + 5000, T0 + 10_000)).isEmpty();
    assertThat(logs.tagValues("status.code", T0, T0 + 10_000)).containsExactly("404", "500", "503");
    assertThat(logs.tagValues(" response.flag ", T0, T0 + 10_000)).containsExactly("UF", "UF,URX", "UH", "URX");
    assertThat(logs.tagValues("status.code", T0 + 2500, T0 + 10_000)).containsExactly("500");
    assertThat(logs.tagValues("level", T0, T0 + 10_000)).isEmpty();
    assertThat(logs.tagValues("", T0, T0 + 10_000)).isEmpty();
  }

  @Test
  void atMostAHundredTagValues() {
    List<io.sextant.api.storage.StoredRecord> many = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      many.add(record("m" + i, new LogEntry("bulk", "", "", T0 + 20_000 + i, "TEXT", "x",
          List.of(tag("status.code", String.valueOf(400 + i))))));
    }
    storage.records().write(many);
    assertThat(logs.tagValues("status.code", T0 + 20_000, T0 + 30_000)).hasSize(LogQueries.MAX_TAG_VALUES);
  }

  private static io.sextant.api.storage.StoredRecord record(String id, LogEntry log) {
    return LogRecords.toRecord(id, log);
  }

  private static LogEntry.Tag tag(String key, String value) {
    return new LogEntry.Tag(key, value);
  }

  /** Each log's id letter, by its time (a..d at T0 + 1..4 s). */
  private List<String> contents(LogQueries.Condition c) {
    return logs.logs(c).stream().map(l -> String.valueOf((char) ('a' + (l.timeMillis() - T0) / 1000 - 1)))
        .toList();
  }

  private static LogQueries.Condition condition(String service, String instance, String endpoint) {
    return new LogQueries.Condition(service, instance, endpoint, T0, T0 + 10_000, null, null, null, false, 1, 10);
  }

  private static LogQueries.Condition withTags(LogEntry.Tag... tags) {
    return new LogQueries.Condition(null, null, null, T0, T0 + 10_000, List.of(tags), List.of(), List.of(), false,
        1, 10);
  }

  private static LogQueries.Condition keywords(List<String> keywords, List<String> excluded) {
    return new LogQueries.Condition(null, null, null, T0, T0 + 10_000, null, keywords, excluded, false, 1, 10);
  }

  private static LogQueries.Condition page(int pageNum, int pageSize, boolean ascending) {
    return new LogQueries.Condition(null, null, null, T0, T0 + 10_000, null, null, null, ascending, pageNum,
        pageSize);
  }
}
