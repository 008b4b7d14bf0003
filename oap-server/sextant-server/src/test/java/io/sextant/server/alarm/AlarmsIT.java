package io.sextant.server.alarm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.Status;
import io.sextant.api.id.EntityIds;
import io.sextant.core.alarm.AlarmEngine;
import io.sextant.server.config.ConfigException;
import io.sextant.server.query.EventsEndToEnd;
import io.sextant.server.testing.HookReceiver;
import io.sextant.server.testing.SextantExtension;
import io.sextant.server.testing.TestServer;
import io.sextant.testkit.poll.Poll;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.skywalking.apm.network.common.v3.DetectPoint;
import org.apache.skywalking.apm.network.event.v3.Type;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetric;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetrics;
import org.apache.skywalking.apm.network.servicemesh.v3.Protocol;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetrics;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * SkyWalking's default rules, loaded from the settings file, fire on mesh traffic that breaks them
 * and stay silent on traffic that does not; every hook type gets the exact payload SkyWalking
 * sends; the UI's and swctl's alarm queries and the status endpoints answer in their shapes; the
 * file is re-read on change and a bad one is refused.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AlarmsIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DateTimeFormatter MINUTE =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm").withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter SECOND =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HHmmss").withZone(ZoneOffset.UTC);
  private static final String RESP_TIME_MESSAGE =
      "Response time of service reviews is more than 1000ms in 3 minutes of last 10 minutes.";
  private static final List<String> DEFAULT_HOOKS = List.of("dingtalk.default", "discord.default",
      "feishu.default", "pagerduty.default", "slack.default", "webhook.default", "wechat.default");

  @TempDir
  static Path dir;
  private static HookReceiver hooks;
  private static Path settings;
  private static long started;
  /** The server reads its rules, naming the hooks' receiver, from a file written first. */
  @RegisterExtension
  static final SextantExtension SEXTANT = SextantExtension.perClass(() -> {
    hooks = new HookReceiver();
    settings = dir.resolve("alarm-settings.yml");
    Files.writeString(settings, settings(""));
    started = System.currentTimeMillis();
    return Map.of("alarm.settingsFile", settings.toString(),
        "alarm.evaluationIntervalSeconds", "3", "alarm.settleSeconds", "0", "server.fileCheckSeconds", "1");
  });
  private TestServer sextant;
  private long dataStart;

  @BeforeAll
  void start() throws Exception {
    sextant = SEXTANT.server();
    // Nine closed minutes of traffic.
    List<HTTPServiceMeshMetric> calls = new ArrayList<>();
    long now = System.currentTimeMillis();
    for (int m = 11; m >= 3; m--) {
      long t = now - m * 60_000L;
      for (int i = 0; i < 10; i++) {
        calls.add(call(t, "reviews", "reviews-v1", 1500, true));
        calls.add(call(t, "reviews", "reviews-v2", 1500, true));
        calls.add(call(t, "details", "details-v1", 20, i % 2 == 0));
        calls.add(call(t, "ratings", "ratings-v1", 20, true));
      }
    }
    dataStart = now;
    Status status = sextant.stream(List.of(ServiceMeshMetrics.newBuilder()
        .setHttpMetrics(HTTPServiceMeshMetrics.newBuilder().addAllMetrics(calls)).build()));
    assertThat(status.getCode()).isEqualTo(Status.Code.OK);
    assertThat(EventsEndToEnd.report(sextant, List.of(EventsEndToEnd.event("ev-1", "reviews", "Upgrade")
        .setStartTime(now - 5 * 60_000L).setEndTime(now - 4 * 60_000L).setMessage("reviews v2 rolled out")
        .build(), EventsEndToEnd.event("ev-2", "ratings", "BackOff").setType(Type.Error)
        .setStartTime(now - 4 * 60_000L).setEndTime(now - 4 * 60_000L).setMessage("Back-off restarting container")
        .build())).getCode()).isEqualTo(Status.Code.OK);
    sextant.flush();
    // The schedule's first evaluation (3 s after the start) normally finds the data stored; should a
    // slow start have it run first, the minute is evaluated again now: a decision is made once either way.
    AlarmEngine engine = sextant.server.alarms().engine();
    engine.evaluate(engine.lastClosedMinute());
    awaitRequests(2 * DEFAULT_HOOKS.size() + 3, 20_000);
  }

  @AfterAll
  void stop() {
    if (hooks != null) {
      hooks.close();
    }
  }

  private static String settings(String extraRule) {
    return """
        rules:
          service_resp_time_rule:
            expression: sum(service_resp_time > 1000) >= 3
            period: 10
            silence-period: 5
            recovery-observation-period: 3
            message: Response time of service {name} is more than 1000ms in 3 minutes of last 10 minutes.
            tags:
              level: WARNING
          service_sla_rule:
            expression: sum(service_sla < 8000) >= 2
            period: 10
            silence-period: 3
            message: Successful rate of service {name} is lower than 80%% in 2 minutes of last 10 minutes
            hooks:
              - webhook.custom
          service_instance_resp_time_rule:
            expression: sum(service_instance_resp_time > 1000) >= 2
            period: 10
            include-names-regex: reviews-v2 of .*
            message: Response time of service instance {name} is more than 1000ms in 2 minutes of last 10 minutes
          slow_calls_to_reviews_rule:
            expression: sum(service_relation_server_resp_time > 1000) >= 3
            period: 10
            message: Calls of {name} take more than 1000ms
            hooks: [webhook.relations]
          pods_backing_off_rule:
            events:
              type: Error
              name-regex: BackOff|Unhealthy
            period: 5
            message: Pods of {name} keep failing
            hooks: [webhook.events]
        %s
        hooks:
          webhook:
            default:
              is-default: true
              urls: [%s]
              headers:
                Authorization: Bearer hook-secret
            custom:
              urls: [%s]
            events:
              urls: [%s]
            relations:
              urls: [%s]
          slack:
            default:
              is-default: true
              text-template: >-
                {"type":"section","text":{"type":"mrkdwn",
                "text":":alarm_clock: *Apache Skywalking Alarm* \\n **%%s**."}}
              webhooks: [%s]
          pagerduty:
            default:
              is-default: true
              url: %s
              text-template: "Apache SkyWalking Alarm: \\n %%s."
              integration-keys: [key-1]
          discord:
            default:
              is-default: true
              text-template: "Apache SkyWalking Alarm: \\n %%s."
              webhooks:
                - url: %s
                  username: sextant
          dingtalk:
            default:
              is-default: true
              text-template: '{"msgtype":"text","text":{"content":"Apache SkyWalking Alarm: \\n %%s."}}'
              webhooks:
                - url: %s
                  secret: s3cret
          feishu:
            default:
              is-default: true
              text-template: '{"msg_type":"text","content":{"text":"Apache SkyWalking Alarm: \\n %%s."}}'
              webhooks:
                - url: %s
                  secret: s3cret
          wechat:
            default:
              is-default: true
              text-template: '{"msgtype":"text","text":{"content":"Apache SkyWalking Alarm: \\n %%s."}}'
              webhooks: [%s]
        """.formatted(extraRule, hooks.url("/webhook"), hooks.url("/custom"), hooks.url("/events"),
        hooks.url("/relations"),
        hooks.url("/slack"),
        hooks.url("/pagerduty"), hooks.url("/discord"), hooks.url("/dingtalk?access_token=t"), hooks.url("/feishu"),
        hooks.url("/wechat"));
  }

  private static HTTPServiceMeshMetric call(long t, String service, String instance, int latency, boolean ok) {
    return HTTPServiceMeshMetric.newBuilder().setStartTime(t).setEndTime(t + latency).setLatency(latency)
        .setSourceServiceName("productpage").setSourceServiceInstance("productpage-v1")
        .setDestServiceName(service).setDestServiceInstance(instance).setEndpoint("GET:/" + service)
        .setResponseCode(ok ? 200 : 503).setStatus(ok).setProtocol(Protocol.HTTP)
        .setDetectPoint(DetectPoint.server).setTlsMode("NONE").build();
  }

  private void awaitRequests(int count, long millis) throws Exception {
    Poll.until(count + " hook requests", Duration.ofMillis(millis), () -> hooks.all().size() >= count);
  }

  @Test
  void theWebhookGetsSkyWalkingsPayloadOncePerAlarm() throws Exception {
    List<HookReceiver.Request> calls = hooks.to("/webhook");
    assertThat(calls).as("the service alarm and the instance alarm; details and ratings are not slow")
        .hasSize(2);
    JsonNode service = single(calls, "service_resp_time_rule");
    assertThat(service.get("scopeId").asInt()).isEqualTo(1);
    assertThat(service.get("scope").asText()).isEqualTo("SERVICE");
    assertThat(service.get("name").asText()).isEqualTo("reviews");
    assertThat(service.get("id0").asText()).isEqualTo(EntityIds.serviceId("reviews", true));
    assertThat(service.get("id1").asText()).isEmpty();
    assertThat(service.get("alarmMessage").asText()).isEqualTo(RESP_TIME_MESSAGE);
    assertThat(service.get("tags").toString()).isEqualTo("[{\"key\":\"level\",\"value\":\"WARNING\"}]");
    assertThat(service.get("startTime").asLong()).isBetween(started, System.currentTimeMillis());
    assertThat(service.get("hooks")).extracting(JsonNode::asText).containsExactlyElementsOf(DEFAULT_HOOKS);
    assertThat(service.get("expression").asText()).isEqualTo("sum(service_resp_time > 1000) >= 3");
    JsonNode series = JSON.readTree(service.get("mqeMetricsSnapshot").get("service_resp_time").asText());
    assertThat(series.get(0).get("values")).hasSize(10);
    assertThat(series.get(0).get("values").findValuesAsText("doubleValue")).contains("1500.0");
    assertThat(service.get("uuid").asText()).isNotEmpty();
    assertThat(service.has("recoveryTime")).isFalse();
    assertThat(calls.get(0).headers().get("Authorization")).containsExactly("Bearer hook-secret");
    assertThat(calls.get(0).headers().get("Content-type")).containsExactly("application/json");

    JsonNode instance = single(calls, "service_instance_resp_time_rule");
    assertThat(instance.get("scopeId").asInt()).isEqualTo(2);
    assertThat(instance.get("name").asText()).as("reviews-v1 is left out by include-names-regex")
        .isEqualTo("reviews-v2 of reviews");
    assertThat(instance.get("id0").asText())
        .isEqualTo(EntityIds.instanceId(EntityIds.serviceId("reviews", true), "reviews-v2"));

    List<HookReceiver.Request> custom = hooks.to("/custom");
    assertThat(custom).as("a rule that names its hooks goes to them, not to the defaults").hasSize(1);
    JsonNode sla = JSON.readTree(custom.get(0).body()).get(0);
    assertThat(sla.get("name").asText()).isEqualTo("details");
    assertThat(sla.get("alarmMessage").asText())
        .isEqualTo("Successful rate of service details is lower than 80% in 2 minutes of last 10 minutes");
  }

  private static JsonNode single(List<HookReceiver.Request> calls, String rule) throws Exception {
    List<JsonNode> found = new ArrayList<>();
    for (HookReceiver.Request r : calls) {
      JsonNode list = JSON.readTree(r.body());
      assertThat(list.isArray()).isTrue();
      list.forEach(m -> {
        if (m.get("ruleName").asText().equals(rule)) {
          found.add(m);
        }
      });
    }
    assertThat(found).hasSize(1);
    return found.get(0);
  }

  @Test
  void aRelationRuleNamesBothEnds() throws Exception {
    JsonNode alarm = single(hooks.to("/relations"), "slow_calls_to_reviews_rule");
    assertThat(alarm.get("scopeId").asInt()).isEqualTo(4);
    assertThat(alarm.get("scope").asText()).isEqualTo("SERVICE_RELATION");
    assertThat(alarm.get("name").asText()).as("only calls to reviews are slow").isEqualTo("productpage to reviews");
    assertThat(alarm.get("id0").asText()).isEqualTo(EntityIds.serviceId("productpage", true));
    assertThat(alarm.get("id1").asText()).isEqualTo(EntityIds.serviceId("reviews", true));
    assertThat(alarm.get("alarmMessage").asText()).isEqualTo("Calls of productpage to reviews take more than 1000ms");
  }

  @Test
  void anEventRuleFiresOnAServicesMatchingEventsOnly() throws Exception {
    List<HookReceiver.Request> calls = hooks.to("/events");
    assertThat(calls).as("ratings' BackOff; reviews' Upgrade is a Normal event").hasSize(1);
    JsonNode alarm = single(calls, "pods_backing_off_rule");
    assertThat(alarm.get("name").asText()).isEqualTo("ratings");
    assertThat(alarm.get("scope").asText()).isEqualTo("SERVICE");
    assertThat(alarm.get("alarmMessage").asText()).isEqualTo("Pods of ratings keep failing");
    JsonNode perMinute = JSON.readTree(alarm.get("mqeMetricsSnapshot").get("events").asText()).get(0).get("values");
    assertThat(perMinute).hasSize(5);
    assertThat(perMinute.findValuesAsText("doubleValue")).containsOnly("0.0", "1.0").contains("1.0");
  }

  @Test
  void everyTextHookGetsItsTemplateFilledAsSkyWalkingSendsIt() throws Exception {
    String uuid = single(hooks.to("/webhook"), "service_resp_time_rule").get("uuid").asText();
    JsonNode slack = bodyAbout("/slack");
    assertThat(slack.toString()).isEqualTo("{\"blocks\":[{\"type\":\"section\",\"text\":{\"type\":\"mrkdwn\","
        + "\"text\":\":alarm_clock: *Apache Skywalking Alarm* \\n **" + RESP_TIME_MESSAGE + "**.\"}}]}");
    JsonNode pagerduty = bodyAbout("/pagerduty");
    assertThat(pagerduty.get("routing_key").asText()).isEqualTo("key-1");
    assertThat(pagerduty.get("event_action").asText()).isEqualTo("trigger");
    assertThat(pagerduty.get("dedup_key").asText()).isEqualTo(uuid);
    assertThat(pagerduty.get("payload").toString()).isEqualTo("{\"summary\":\"Apache SkyWalking Alarm: \\n "
        + RESP_TIME_MESSAGE + ".\",\"severity\":\"warning\",\"source\":\"Skywalking\"}");
    assertThat(bodyAbout("/discord").toString()).isEqualTo("{\"username\":\"sextant\",\"content\":"
        + "\"Apache SkyWalking Alarm: \\n " + RESP_TIME_MESSAGE + ".\"}");
    String textBody = "{\"msgtype\":\"text\",\"text\":{\"content\":\"Apache SkyWalking Alarm: \\n " + RESP_TIME_MESSAGE
        + ".\"}}";
    assertThat(bodyAbout("/wechat").toString()).isEqualTo(textBody);
    assertThat(bodyAbout("/dingtalk").toString()).isEqualTo(textBody);
    HookReceiver.Request dingtalk = about("/dingtalk");
    Map<String, String> query = query(dingtalk.query());
    assertThat(query.get("access_token")).isEqualTo("t");
    assertThat(query.get("sign")).as("HmacSHA256(secret, timestamp\\nsecret), as DingTalk checks it")
        .isEqualTo(hmac("s3cret", query.get("timestamp") + "\ns3cret"));
    JsonNode feishu = bodyAbout("/feishu");
    assertThat(feishu.get("msg_type").asText()).isEqualTo("text");
    assertThat(feishu.get("content").get("text").asText()).isEqualTo("Apache SkyWalking Alarm: \n "
        + RESP_TIME_MESSAGE + ".");
    assertThat(feishu.get("sign").asText()).as("HmacSHA256(timestamp\\nsecret, nothing), as Feishu checks it")
        .isEqualTo(hmac(feishu.get("timestamp").asText() + "\ns3cret", ""));
    for (String path : List.of("/slack", "/pagerduty", "/discord", "/wechat", "/dingtalk", "/feishu")) {
      assertThat(hooks.to(path)).as(path + ": the service and the instance alarm, once each").hasSize(2);
    }
  }

  private HookReceiver.Request about(String path) {
    return hooks.to(path).stream().filter(r -> r.body().contains("service reviews is")).findFirst().orElseThrow();
  }

  private JsonNode bodyAbout(String path) throws Exception {
    return JSON.readTree(about(path).body());
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> out = new java.util.HashMap<>();
    for (String pair : raw.split("&")) {
      String[] kv = pair.split("=", 2);
      out.put(kv[0], URLDecoder.decode(kv[1], StandardCharsets.UTF_8));
    }
    return out;
  }

  private static String hmac(String key, String data) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    return Base64.getEncoder().encodeToString(mac.doFinal(data.getBytes(StandardCharsets.UTF_8)));
  }

  private String minutes() {
    long now = System.currentTimeMillis();
    return "{start: \"" + MINUTE.format(Instant.ofEpochMilli(now - 30 * 60_000L)) + "\", end: \""
        + MINUTE.format(Instant.ofEpochMilli(now + 60_000L)) + "\", step: MINUTE}";
  }

  @Test
  void boosterUi104sAlertingPageQueryIsAnswered() throws Exception {
    long now = System.currentTimeMillis();
    Map<String, Object> duration = Map.of("start", SECOND.format(Instant.ofEpochMilli(now - 30 * 60_000L)),
        "end", SECOND.format(Instant.ofEpochMilli(now + 60_000L)), "step", "SECOND");
    String query = "query queryAlarms($keyword: String, $scope: Scope, $duration:Duration!, $tags:[AlarmTag],"
        + " $paging: Pagination!) { getAlarm(keyword: $keyword, scope: $scope, duration: $duration, paging: $paging,"
        + " tags: $tags) { items: msgs { key: id message startTime recoveryTime scope tags{key value}"
        + " events{uuid source{service serviceInstance endpoint} name type message parameters{key value} startTime"
        + " endTime} name snapshot{ expression metrics{ name results{ metric{labels{key value}} values{ id"
        + " owner{scope serviceID serviceName normal serviceInstanceID serviceInstanceName endpointID endpointName}"
        + " value traceID } } } } } } }";
    JsonNode all = sextant.graphql(query, Map.of("duration", duration, "paging", Map.of("pageNum", 1, "pageSize",
        21)));
    assertThat(all.has("errors")).as(all.toString()).isFalse();
    JsonNode items = all.get("data").get("getAlarm").get("items");
    assertThat(items).extracting(i -> i.get("name").asText())
        .containsExactlyInAnyOrder("reviews", "reviews-v2 of reviews", "details", "ratings",
            "productpage to reviews");
    JsonNode reviews = find(items, "reviews");
    assertThat(reviews.get("key").asText()).isEqualTo(EntityIds.serviceId("reviews", true));
    assertThat(reviews.get("message").asText()).isEqualTo(RESP_TIME_MESSAGE);
    assertThat(reviews.get("scope").asText()).isEqualTo("Service");
    assertThat(reviews.get("recoveryTime").isNull()).isTrue();
    assertThat(reviews.get("snapshot").get("expression").asText()).isEqualTo("sum(service_resp_time > 1000) >= 3");
    JsonNode values = reviews.get("snapshot").get("metrics").get(0).get("results").get(0).get("values");
    assertThat(values).hasSize(10);
    assertThat(values.findValuesAsText("value")).contains("1500");
    assertThat(reviews.get("events")).extracting(e -> e.get("name").asText()).containsExactly("Upgrade");

    Map<String, Object> onlyInstances = Map.of("duration", duration, "scope", "ServiceInstance", "paging",
        Map.of("pageNum", 1, "pageSize", 21));
    assertThat(sextant.graphql(query, onlyInstances).get("data").get("getAlarm").get("items"))
        .extracting(i -> i.get("name").asText()).containsExactly("reviews-v2 of reviews");
    Map<String, Object> byKeyword = Map.of("duration", duration, "keyword", "successful rate", "paging",
        Map.of("pageNum", 1, "pageSize", 21));
    assertThat(sextant.graphql(query, byKeyword).get("data").get("getAlarm").get("items"))
        .extracting(i -> i.get("name").asText()).containsExactly("details");
    Map<String, Object> byTag = Map.of("duration", duration, "tags", List.of(Map.of("key", "level", "value",
        "WARNING")), "paging", Map.of("pageNum", 1, "pageSize", 21));
    assertThat(sextant.graphql(query, byTag).get("data").get("getAlarm").get("items"))
        .extracting(i -> i.get("name").asText()).containsExactly("reviews");
    Map<String, Object> secondPage = Map.of("duration", duration, "paging", Map.of("pageNum", 2, "pageSize", 2));
    assertThat(sextant.graphql(query, secondPage).get("data").get("getAlarm").get("items")).hasSize(2);
    Map<String, Object> thirdPage = Map.of("duration", duration, "paging", Map.of("pageNum", 3, "pageSize", 2));
    assertThat(sextant.graphql(query, thirdPage).get("data").get("getAlarm").get("items")).hasSize(1);

    JsonNode keys = sextant.data("{ tagKeys: queryAlarmTagAutocompleteKeys(duration: " + minutes() + ") tagValues:"
        + " queryAlarmTagAutocompleteValues(tagKey: \"level\", duration: " + minutes() + ") }");
    assertThat(keys.get("tagKeys")).extracting(JsonNode::asText).containsExactly("level");
    assertThat(keys.get("tagValues")).extracting(JsonNode::asText).containsExactly("WARNING");
  }

  /** SkyWalking 11's queryAlarms, as Horizon v0.7.0's alarms page and widgets send it. */
  @Test
  void horizonsQueryAlarmsNarrowsByEntityLayerAndRule() throws Exception {
    long now = System.currentTimeMillis();
    Map<String, Object> duration = Map.of("start", SECOND.format(Instant.ofEpochMilli(now - 30 * 60_000L)),
        "end", SECOND.format(Instant.ofEpochMilli(now + 60_000L)), "step", "SECOND");
    Map<String, Object> paging = Map.of("pageNum", 1, "pageSize", 500);
    String query = "query HorizonQueryAlarms($condition: AlarmQueryCondition!) { queryAlarms(condition:"
        + " $condition) { msgs { id name message startTime recoveryTime scope tags { key value } } } }";
    assertThat(names(query, Map.of("duration", duration, "paging", paging))).containsExactlyInAnyOrder("reviews",
        "reviews-v2 of reviews", "details", "ratings", "productpage to reviews");
    // A service's alarms and those of the relations it is an end of.
    assertThat(names(query, Map.of("duration", duration, "paging", paging, "entities",
        List.of(Map.of("scope", "Service", "serviceName", "reviews", "normal", true)))))
        .containsExactlyInAnyOrder("reviews", "productpage to reviews");
    assertThat(names(query, Map.of("duration", duration, "paging", paging, "entities", List.of(
        Map.of("scope", "ServiceInstance", "serviceName", "reviews", "normal", true, "serviceInstanceName",
            "reviews-v2"),
        Map.of("serviceName", "productpage", "normal", true, "destServiceName", "reviews", "destNormal", true)))))
        .containsExactlyInAnyOrder("reviews-v2 of reviews", "productpage to reviews");
    // The layer of the metrics each rule read: all of these read mesh metrics.
    assertThat(names(query, Map.of("duration", duration, "paging", paging, "layer", "MESH"))).hasSize(5);
    assertThat(names(query, Map.of("duration", duration, "paging", paging, "layer", "MESH_DP"))).isEmpty();
    assertThat(names(query, Map.of("duration", duration, "paging", paging, "layer", "SO11Y_OAP"))).isEmpty();
    assertThat(names(query, Map.of("duration", duration, "paging", paging, "ruleNames",
        List.of("service_sla_rule", "slow_calls_to_reviews_rule"), "keyword", "rate")))
        .containsExactly("details");
  }

  private List<String> names(String query, Map<String, Object> condition) throws Exception {
    JsonNode r = sextant.graphql(query, Map.of("condition", condition));
    assertThat(r.has("errors")).as(r.toString()).isFalse();
    List<String> names = new ArrayList<>();
    r.get("data").get("queryAlarms").get("msgs").forEach(m -> names.add(m.get("name").asText()));
    return names;
  }

  private static JsonNode find(JsonNode items, String name) {
    for (JsonNode i : items) {
      if (i.get("name").asText().equals(name)) {
        return i;
      }
    }
    throw new AssertionError("no alarm about " + name + " in " + items);
  }

  @Test
  void boosterUi101AndSwctlQueriesAreAnswered() throws Exception {
    JsonNode ui = sextant.data("{ getAlarm(duration: " + minutes() + ", paging: {pageNum: 1, pageSize: 20}) {"
        + " items: msgs { key: id message startTime scope tags{key value} events{uuid source{service serviceInstance"
        + " endpoint} name type message parameters{key value} startTime endTime} } }"
        + " trend: getAlarmTrend(duration: " + minutes() + ") { numOfAlarm } }");
    assertThat(ui.get("getAlarm").get("items")).hasSize(5);
    int total = 0;
    for (JsonNode n : ui.get("trend").get("numOfAlarm")) {
      total += n.asInt();
    }
    assertThat(total).as("getAlarmTrend counts every alarm once").isEqualTo(5);
    String swctl = "query ($duration: Duration!, $scope: Scope, $keyword: String, $paging: Pagination!, $tags:"
        + " [AlarmTag]) { result: getAlarm(duration: $duration, scope: $scope, keyword: $keyword, paging: $paging,"
        + " tags: $tags) { msgs { startTime scope id message tags{key, value} events{name source{service"
        + " serviceInstance endpoint} startTime endTime message parameters{key value} uuid layer} } } }";
    long now = System.currentTimeMillis();
    JsonNode answer = sextant.graphql(swctl, Map.of("duration", Map.of("start",
        MINUTE.format(Instant.ofEpochMilli(now - 30 * 60_000L)), "end", MINUTE.format(Instant.ofEpochMilli(now)),
        "step", "MINUTE"), "paging", Map.of("pageNum", 1, "pageSize", 15)));
    assertThat(answer.has("errors")).as(answer.toString()).isFalse();
    assertThat(answer.get("data").get("result").get("msgs")).extracting(m -> m.get("message").asText())
        .contains(RESP_TIME_MESSAGE);
  }

  @Test
  void theStatusEndpointsShowRulesAndEntitiesInSkyWalkingsShape() throws Exception {
    JsonNode rules = JSON.readTree(sextant.get("/status/alarm/rules"));
    assertThat(rules.get("oapInstances").get(0).get("status").get("ruleList").findValuesAsText("id"))
        .contains("service_resp_time_rule", "service_sla_rule", "service_instance_resp_time_rule");
    JsonNode rule = JSON.readTree(sextant.get("/status/alarm/service_resp_time_rule")).get("oapInstances").get(0)
        .get("status");
    assertThat(rule.get("period").asInt()).isEqualTo(10);
    assertThat(rule.get("recoveryObservationPeriod").asInt()).isEqualTo(3);
    assertThat(rule.get("runningEntities").findValuesAsText("name")).containsExactly("reviews");
    assertThat(rule.get("includeMetrics").get(0).asText()).isEqualTo("service_resp_time");
    JsonNode entity = JSON.readTree(sextant.get("/status/alarm/service_resp_time_rule/reviews"))
        .get("oapInstances").get(0).get("status");
    assertThat(entity.get("currentState").asText()).isIn("FIRING", "SILENCED_FIRING");
    assertThat(entity.get("windowValues")).hasSize(10);
    assertThat(entity.get("lastAlarmMessage").asText()).isEqualTo(RESP_TIME_MESSAGE);
    assertThat(sextant.get("/status/alarm/no_such_rule")).isEqualTo("no alarm rule 'no_such_rule'");
  }

  @Test
  void theSettingsFileIsReReadAndABadChangeKeepsTheLastGoodRules() throws Exception {
    Files.writeString(settings, settings("""
          service_cpm_rule:
            expression: sum(service_cpm < 1) >= 1
            period: 2
        """));
    awaitRuleList("service_cpm_rule", true);
    Files.writeString(settings, settings("""
          broken_rule:
            expression: sum(no_such_metric > 1) >= 1
        """));
    Poll.until("the bad change refused", Duration.ofSeconds(10),
        () -> sextant.get("/metrics").contains("sextant_alarm_settings_reload_failures_total 1.0"));
    assertThat(sextant.get("/status/alarm/rules")).as("the last good rules stay").contains("\"service_cpm_rule\"");
    Files.writeString(settings, settings(""));
    awaitRuleList("service_cpm_rule", false);
  }

  private void awaitRuleList(String rule, boolean present) throws Exception {
    Poll.until("rule " + rule + (present ? " listed" : " gone"), Duration.ofSeconds(10),
        () -> sextant.get("/status/alarm/rules").contains("\"" + rule + "\"") == present);
  }

  @Test
  void rulesAreWrittenThroughTheApiWithVersionsAndFileRulesStayReadOnly() throws Exception {
    String save = "mutation ($name: String!, $settings: String!, $version: Long!) { r: saveAlarmRule(name: $name,"
        + " settings: $settings, version: $version) { rule { name settings enabled source version scope }"
        + " errorReason } }";
    String settings = "{\"expression\": \"sum(service_cpm > 100) >= 1\", \"period\": 3}";
    JsonNode created = sextant.data(save, Map.of("name", "busy_rule", "settings", settings, "version", 0))
        .get("r");
    assertThat(created.get("errorReason").isNull()).as(created.toString()).isTrue();
    assertThat(created.get("rule").get("version").asLong()).isEqualTo(1);
    assertThat(created.get("rule").get("source").asText()).isEqualTo("api");
    assertThat(created.get("rule").get("scope").asText()).isEqualTo("SERVICE");
    assertThat(sextant.data(save, Map.of("name", "busy_rule", "settings", settings, "version", 0)).get("r")
        .get("errorReason").asText()).contains("exists already");
    String slower = "{\"expression\": \"sum(service_cpm > 200) >= 1\", \"period\": 3}";
    assertThat(sextant.data(save, Map.of("name", "busy_rule", "settings", slower, "version", 1)).get("r")
        .get("rule").get("version").asLong()).isEqualTo(2);
    assertThat(sextant.data(save, Map.of("name", "busy_rule", "settings", settings, "version", 1)).get("r")
        .get("errorReason").asText()).as("a change made on a stale version").contains("is not at version 1");
    String disabled = "{\"expression\": \"sum(service_cpm > 200) >= 1\", \"period\": 3, \"enabled\": false}";
    JsonNode off = sextant.data(save, Map.of("name", "busy_rule", "settings", disabled, "version", 2)).get("r");
    assertThat(off.get("rule").get("enabled").asBoolean()).isFalse();
    assertThat(sextant.data(save, Map.of("name", "service_sla_rule", "settings", settings, "version", 0))
        .get("r").get("errorReason").asText()).contains("comes from the alarm settings file");
    assertThat(sextant.data(save, Map.of("name", "typo_rule", "settings",
        "{\"expression\": \"sum(service_cpmm > 1) >= 1\", \"period\": \"x\"}", "version", 0)).get("r")
        .get("errorReason").asText()).isEqualTo("rule 'typo_rule': unknown metric 'service_cpmm'; rule 'typo_rule':"
            + " period must be a whole number of minutes, not 'x'");

    JsonNode listed = sextant.data("{ listAlarmRules { name source version enabled settings } }")
        .get("listAlarmRules");
    assertThat(JSON.readTree(find(listed, "pods_backing_off_rule", "name").get("settings").asText()).get("events")
        .get("name-regex").asText()).as("a file rule's settings as written").isEqualTo("BackOff|Unhealthy");
    assertThat(listed.findValuesAsText("name")).contains("service_resp_time_rule", "busy_rule");
    assertThat(find(listed, "busy_rule", "name").get("version").asLong()).isEqualTo(3);
    assertThat(find(listed, "service_sla_rule", "name").get("source").asText()).isEqualTo("file");
    assertThat(JSON.readTree(sextant.get("/status/alarm/busy_rule")).at("/oapInstances/0/status/enabled")
        .asBoolean()).isFalse();

    String delete = "mutation { r: deleteAlarmRule(name: \"busy_rule\", version: %d) { errorReason } }";
    assertThat(sextant.data(delete.formatted(2)).get("r").get("errorReason").asText()).contains("not at version 2");
    assertThat(sextant.data(delete.formatted(3)).get("r").get("errorReason").isNull()).isTrue();
    assertThat(sextant.data("{ listAlarmRules { name } }").get("listAlarmRules").findValuesAsText("name"))
        .doesNotContain("busy_rule");
  }

  @Test
  void aDryRunAnswersWhenADraftWouldHaveFiredOnStoredData() throws Exception {
    String dryRun = "query ($settings: String!) { r: dryRunAlarmRule(name: \"errors_rule\", settings: $settings,"
        + " minutes: 20) { minutes entities alarms { entity scope startTime recoveryTime message } errorReason } }";
    JsonNode r = sextant.data(dryRun, Map.of("settings", "{\"expression\": \"sum(service_sla < 8000) >= 2\","
        + " \"period\": 10, \"message\": \"{name} fails\"}")).get("r");
    assertThat(r.get("errorReason").isNull()).as(r.toString()).isTrue();
    assertThat(r.get("minutes").asInt()).isEqualTo(20);
    assertThat(r.get("entities").asInt()).as("details, ratings, reviews").isEqualTo(3);
    assertThat(r.get("alarms")).singleElement().satisfies(a -> {
      assertThat(a.get("entity").asText()).isEqualTo("details");
      assertThat(a.get("message").asText()).isEqualTo("details fails");
      long secondBadMinuteEnd = (dataStart - 10 * 60_000L) / 60_000L * 60_000L + 60_000L;
      assertThat(a.get("startTime").asLong()).as("at the end of the second minute under 80%")
          .isEqualTo(secondBadMinuteEnd);
      assertThat(a.get("recoveryTime").isNull()).as("still failing at the end of the range").isTrue();
    });
    assertThat(hooks.to("/custom")).as("a dry run calls no hook").hasSize(1);
    JsonNode bad = sextant.data(dryRun, Map.of("settings", "{\"expression\": \"service_sla\"}")).get("r");
    assertThat(bad.get("errorReason").asText()).contains("must compare at its root");
  }

  private static JsonNode find(JsonNode items, String value, String field) {
    for (JsonNode i : items) {
      if (i.get(field).asText().equals(value)) {
        return i;
      }
    }
    throw new AssertionError("no " + field + " " + value + " in " + items);
  }

  @Test
  void aBadSettingsFileStopsTheStartNamingEveryProblem() throws Exception {
    Path bad = dir.resolve("bad.yml");
    Files.writeString(bad, """
        rules:
          latency_rule:
            expression: avg(service_latency) > 100
          series_rule:
            expression: service_resp_time > 1000
        """);
    assertThatThrownBy(() -> new TestServer(Map.of("alarm.settingsFile", bad.toString())))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(bad + ": rule 'latency_rule': unknown metric 'service_latency'")
        .hasMessageContaining(bad + ": rule 'series_rule': the expression must answer a single value per entity");
  }
}
