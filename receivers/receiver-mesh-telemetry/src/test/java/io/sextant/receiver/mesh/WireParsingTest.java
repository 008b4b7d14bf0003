package io.sextant.receiver.mesh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnknownFieldSet;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.skywalking.apm.network.common.v3.DetectPoint;
import org.apache.skywalking.apm.network.common.v3.KeyStringValuePair;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetric;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetrics;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetrics;
import org.apache.skywalking.apm.network.servicemesh.v3.TCPServiceMeshMetric;
import org.apache.skywalking.apm.network.servicemesh.v3.TCPServiceMeshMetrics;
import org.junit.jupiter.api.Test;

/**
 * The receiver's own reading of {@code ServiceMeshMetrics} must see exactly what protobuf's
 * generated parser sees, for any message: every field, defaults, the oneof rule, repeated fields
 * spread over several occurrences, unknown fields, non-ASCII names, and invalid UTF-8.
 */
class WireParsingTest {
  private static final String[] NAMES = {"", "productpage", "reviews-v1-7bd5b5b9c-x2x", "GET:/api/v1/products/{id}",
      "서비스", "naïve-svc", "emoji-\uD83D\uDE00", "mTLS", "TLS", "NONE", "UF,URX"};

  private final Random random = new Random(7);

  @Test
  void readsWhatProtobufReadsForRandomMessages() throws Exception {
    NameTable names = new NameTable(8); // small, so some names are decoded past the table's bound
    for (int i = 0; i < 3_000; i++) {
      byte[] bytes = randomMessage();
      assertSameAsProtobuf(bytes, names);
    }
    assertThat(names.size()).isEqualTo(8);
  }

  @Test
  void aLaterMetricsFieldOfTheOtherKindReplacesTheEarlierOne() throws Exception {
    byte[] http = ServiceMeshMetrics.newBuilder().setHttpMetrics(HTTPServiceMeshMetrics.newBuilder()
        .addMetrics(http(random)).addMetrics(http(random))).build().toByteArray();
    byte[] tcp = ServiceMeshMetrics.newBuilder().setTcpMetrics(TCPServiceMeshMetrics.newBuilder()
        .addMetrics(tcp(random))).build().toByteArray();
    for (byte[] bytes : List.of(concat(http, tcp), concat(tcp, http), concat(http, http), concat(tcp, http, http),
        concat(http, tcp, tcp, http))) {
      assertSameAsProtobuf(bytes, new NameTable(100));
    }
    MessageLayout layout = new MessageLayout();
    layout.read(concat(http, tcp, http));
    assertThat(layout.kind).isEqualTo(MessageLayout.Kind.HTTP);
    assertThat(layout.count).isEqualTo(2);
  }

  @Test
  void invalidUtf8IsMalformedAsForProtobuf() {
    byte[] bad = {(byte) 0xC3, (byte) 0x28};
    HTTPServiceMeshMetric name = HTTPServiceMeshMetric.newBuilder().setDestServiceName("x").build();
    byte[] inName = withField(name, 5, bad);
    byte[] badValue = KeyStringValuePair.newBuilder().setKey("k").build().toByteString().concat(field(2, bad))
        .toByteArray();
    byte[] inProperty = withField(name, 17, badValue);
    for (byte[] record : List.of(inName, inProperty)) {
      byte[] message = httpMessage(record);
      assertThatThrownBy(() -> ServiceMeshMetrics.parseFrom(message))
          .isInstanceOf(InvalidProtocolBufferException.class);
      MessageLayout layout = new MessageLayout();
      layout.read(message);
      WireMetric metric = new WireMetric(new NameTable(10), 512);
      assertThatThrownBy(() -> metric.readHttp(new WireReader(message, layout.records[0], layout.records[1]),
          layout.records[1])).isInstanceOf(WireReader.Malformed.class).hasMessageContaining("UTF-8");
    }
  }

  @Test
  void truncatedMessagesAreMalformed() {
    byte[] whole = ServiceMeshMetrics.newBuilder().setHttpMetrics(HTTPServiceMeshMetrics.newBuilder()
        .addMetrics(http(random))).build().toByteArray();
    for (int cut = 1; cut < whole.length; cut++) {
      byte[] part = java.util.Arrays.copyOf(whole, cut);
      boolean protobufFails;
      try {
        ServiceMeshMetrics.parseFrom(part);
        protobufFails = false;
      } catch (InvalidProtocolBufferException e) {
        protobufFails = true;
      }
      boolean oursFails;
      try {
        MessageLayout layout = new MessageLayout();
        layout.read(part);
        WireMetric metric = new WireMetric(new NameTable(10), 512);
        for (int r = 0; r < layout.count; r++) {
          metric.readHttp(new WireReader(part, layout.records[r * 2], layout.records[r * 2 + 1]),
              layout.records[r * 2 + 1]);
        }
        oursFails = false;
      } catch (WireReader.Malformed e) {
        oursFails = true;
      }
      assertThat(oursFails).as("cut at %d of %d", cut, whole.length).isEqualTo(protobufFails);
    }
  }

  @Test
  void propertiesAreCutToTheMaximumLengthWhenRead() {
    HTTPServiceMeshMetric m = HTTPServiceMeshMetric.newBuilder().setDestServiceName("svc")
        .addDestInstanceProperties(KeyStringValuePair.newBuilder().setKey("hostname").setValue("a".repeat(40)))
        .addDestInstanceProperties(KeyStringValuePair.newBuilder().setKey("ipv4s").setValue("10.0.0.1"))
        .addDestInstanceProperties(KeyStringValuePair.newBuilder().setKey("ipv4s").setValue("10.0.0.2"))
        .build();
    byte[] message = httpMessage(m.toByteArray());
    MessageLayout layout = new MessageLayout();
    layout.read(message);
    WireMetric metric = new WireMetric(new NameTable(10), 16);
    metric.readHttp(new WireReader(message, layout.records[0], layout.records[1]), layout.records[1]);
    assertThat(metric.destPropertyCount).isEqualTo(3);
    assertThat(metric.destProperties).containsExactlyInAnyOrderEntriesOf(
        Map.of("hostname", "a".repeat(16), "ipv4s", "10.0.0.2"));
    assertThat(metric.sourceProperties).isEmpty();
  }

  @Test
  void aKnownNameIsAlwaysTheSameString() {
    NameTable names = new NameTable(10);
    byte[] a = "xreviewsx".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] b = "reviews".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    String first = names.name(a, 1, 7);
    assertThat(first).isEqualTo("reviews");
    assertThat(names.name(b, 0, 7)).isSameAs(first);
  }

  @Test
  void utf8IsCheckedAtEveryPositionOfALongString() {
    for (int at = 0; at < 40; at++) {
      byte[] bytes = "a".repeat(40).getBytes(java.nio.charset.StandardCharsets.UTF_8);
      bytes[at] = (byte) 0xC3; // a lead byte followed by an ASCII byte: invalid
      assertThat(NameTable.isValidUtf8(bytes, 0, bytes.length)).as("at %d", at).isFalse();
      bytes[at] = (byte) 0x80; // a lone continuation byte: invalid
      assertThat(NameTable.isValidUtf8(bytes, 0, bytes.length)).as("at %d", at).isFalse();
      assertThat(NameTable.isValidUtf8(bytes, at + 1, bytes.length - at - 1)).isTrue();
    }
    byte[] valid = "abcdefghijklmnopä-ñ-서비스-😀".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    assertThat(NameTable.isValidUtf8(valid, 0, valid.length)).isTrue();
  }

  @Test
  void aLongNameIsDecodedButNotKept() {
    NameTable names = new NameTable(10);
    String longName = "GET:/" + "ä".repeat(NameTable.MAX_NAME_BYTES);
    byte[] bytes = longName.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    assertThat(names.name(bytes, 0, bytes.length)).isEqualTo(longName);
    assertThat(names.size()).isZero();
  }

  private void assertSameAsProtobuf(byte[] bytes, NameTable names) throws Exception {
    ServiceMeshMetrics expected = ServiceMeshMetrics.parseFrom(bytes);
    MessageLayout layout = new MessageLayout();
    layout.read(bytes);
    MessageLayout.Kind kind = switch (expected.getMetricsCase()) {
      case HTTPMETRICS -> MessageLayout.Kind.HTTP;
      case TCPMETRICS -> MessageLayout.Kind.TCP;
      case METRICS_NOT_SET -> MessageLayout.Kind.NONE;
    };
    assertThat(layout.kind).isEqualTo(kind);
    WireMetric m = new WireMetric(names, 512);
    if (kind == MessageLayout.Kind.HTTP) {
      List<HTTPServiceMeshMetric> records = expected.getHttpMetrics().getMetricsList();
      assertThat(layout.count).isEqualTo(records.size());
      for (int i = 0; i < records.size(); i++) {
        m.readHttp(new WireReader(bytes, layout.records[i * 2], layout.records[i * 2 + 1]), layout.records[i * 2 + 1]);
        HTTPServiceMeshMetric e = records.get(i);
        assertThat(httpFields(m)).isEqualTo(List.of(e.getStartTime(), e.getEndTime(), e.getSourceServiceName(),
            e.getSourceServiceInstance(), e.getDestServiceName(), e.getDestServiceInstance(), e.getEndpoint(),
            e.getLatency(), e.getResponseCode(), e.getStatus(), e.getProtocolValue(), e.getDetectPointValue(),
            e.getTlsMode(), e.getInternalErrorCode(), e.getInternalRequestLatencyNanos(),
            e.getInternalResponseLatencyNanos(), map(e.getSourceInstancePropertiesList()),
            map(e.getDestInstancePropertiesList()), e.getSourceInstancePropertiesCount(),
            e.getDestInstancePropertiesCount()));
      }
    } else if (kind == MessageLayout.Kind.TCP) {
      List<TCPServiceMeshMetric> records = expected.getTcpMetrics().getMetricsList();
      assertThat(layout.count).isEqualTo(records.size());
      for (int i = 0; i < records.size(); i++) {
        m.readTcp(new WireReader(bytes, layout.records[i * 2], layout.records[i * 2 + 1]), layout.records[i * 2 + 1]);
        TCPServiceMeshMetric e = records.get(i);
        assertThat(tcpFields(m)).isEqualTo(List.of(e.getStartTime(), e.getEndTime(), e.getSourceServiceName(),
            e.getSourceServiceInstance(), e.getDestServiceName(), e.getDestServiceInstance(),
            e.getDetectPointValue(), e.getTlsMode(), e.getInternalErrorCode(), e.getInternalRequestLatencyNanos(),
            e.getInternalResponseLatencyNanos(), map(e.getSourceInstancePropertiesList()),
            map(e.getDestInstancePropertiesList()), e.getReceivedBytes(), e.getSentBytes()));
      }
    }
  }

  private static List<Object> httpFields(WireMetric m) {
    return List.of(m.startTime, m.endTime, m.sourceServiceName, m.sourceServiceInstance, m.destServiceName,
        m.destServiceInstance, m.endpoint, m.latency, m.responseCode, m.status, m.protocol, m.detectPoint,
        m.tlsMode, m.internalErrorCode, m.internalRequestLatencyNanos, m.internalResponseLatencyNanos,
        Map.copyOf(m.sourceProperties), Map.copyOf(m.destProperties), m.sourcePropertyCount, m.destPropertyCount);
  }

  private static List<Object> tcpFields(WireMetric m) {
    return List.of(m.startTime, m.endTime, m.sourceServiceName, m.sourceServiceInstance, m.destServiceName,
        m.destServiceInstance, m.detectPoint, m.tlsMode, m.internalErrorCode, m.internalRequestLatencyNanos,
        m.internalResponseLatencyNanos, Map.copyOf(m.sourceProperties), Map.copyOf(m.destProperties),
        m.receivedBytes, m.sentBytes);
  }

  private static Map<String, String> map(List<KeyStringValuePair> pairs) {
    Map<String, String> m = new LinkedHashMap<>();
    pairs.forEach(p -> m.put(p.getKey(), p.getValue()));
    return Map.copyOf(m);
  }

  /** A message of random content: one or more metrics fields, each possibly with unknown fields. */
  private byte[] randomMessage() {
    List<byte[]> parts = new ArrayList<>();
    int n = random.nextInt(4);
    for (int i = 0; i < n; i++) {
      ServiceMeshMetrics.Builder b = ServiceMeshMetrics.newBuilder();
      if (random.nextBoolean()) {
        HTTPServiceMeshMetrics.Builder h = HTTPServiceMeshMetrics.newBuilder();
        for (int k = random.nextInt(4); k > 0; k--) {
          h.addMetrics(http(random));
        }
        b.setHttpMetrics(h.setUnknownFields(unknown()));
      } else {
        TCPServiceMeshMetrics.Builder t = TCPServiceMeshMetrics.newBuilder();
        for (int k = random.nextInt(4); k > 0; k--) {
          t.addMetrics(tcp(random));
        }
        b.setTcpMetrics(t.setUnknownFields(unknown()));
      }
      parts.add(b.setUnknownFields(unknown()).build().toByteArray());
    }
    return concat(parts.toArray(new byte[0][]));
  }

  private HTTPServiceMeshMetric http(Random r) {
    HTTPServiceMeshMetric.Builder b = HTTPServiceMeshMetric.newBuilder()
        .setStartTime(r.nextBoolean() ? r.nextLong() : r.nextInt(1_000_000)).setEndTime(r.nextLong())
        .setSourceServiceName(name(r)).setSourceServiceInstance(name(r)).setDestServiceName(name(r))
        .setDestServiceInstance(name(r)).setEndpoint(name(r)).setLatency(r.nextInt()).setResponseCode(r.nextInt(600))
        .setStatus(r.nextBoolean()).setProtocolValue(r.nextInt(4) - 1).setDetectPointValue(r.nextInt(5) - 1)
        .setTlsMode(name(r)).setInternalErrorCode(name(r)).setInternalRequestLatencyNanos(r.nextLong())
        .setInternalResponseLatencyNanos(r.nextInt(1000));
    for (int k = r.nextInt(4); k > 0; k--) {
      b.addSourceInstanceProperties(KeyStringValuePair.newBuilder().setKey(name(r)).setValue(name(r)));
    }
    for (int k = r.nextInt(4); k > 0; k--) {
      b.addDestInstanceProperties(KeyStringValuePair.newBuilder().setKey(name(r)).setValue(name(r))
          .setUnknownFields(unknown()));
    }
    return b.setUnknownFields(unknown()).build();
  }

  private TCPServiceMeshMetric tcp(Random r) {
    TCPServiceMeshMetric.Builder b = TCPServiceMeshMetric.newBuilder()
        .setStartTime(r.nextLong()).setEndTime(r.nextInt()).setSourceServiceName(name(r))
        .setSourceServiceInstance(name(r)).setDestServiceName(name(r)).setDestServiceInstance(name(r))
        .setDetectPoint(DetectPoint.forNumber(r.nextInt(3))).setTlsMode(name(r)).setInternalErrorCode(name(r))
        .setInternalRequestLatencyNanos(r.nextInt()).setInternalResponseLatencyNanos(r.nextLong())
        .setReceivedBytes(r.nextLong()).setSentBytes(r.nextInt());
    for (int k = r.nextInt(3); k > 0; k--) {
      b.addDestInstanceProperties(KeyStringValuePair.newBuilder().setKey(name(r)).setValue(name(r)));
    }
    return b.setUnknownFields(unknown()).build();
  }

  private String name(Random r) {
    return NAMES[r.nextInt(NAMES.length)] + (r.nextInt(4) == 0 ? "-" + r.nextInt(50) : "");
  }

  /** Fields no version of the protocol has, of every wire type; protobuf skips them, so must we. */
  private UnknownFieldSet unknown() {
    if (random.nextInt(3) != 0) {
      return UnknownFieldSet.getDefaultInstance();
    }
    return UnknownFieldSet.newBuilder()
        .addField(99, UnknownFieldSet.Field.newBuilder().addVarint(random.nextLong()).build())
        .addField(100, UnknownFieldSet.Field.newBuilder().addFixed32(random.nextInt()).build())
        .addField(101, UnknownFieldSet.Field.newBuilder().addFixed64(random.nextLong()).build())
        .addField(102, UnknownFieldSet.Field.newBuilder().addLengthDelimited(ByteString.copyFromUtf8("x")).build())
        .addField(103, UnknownFieldSet.Field.newBuilder().addGroup(UnknownFieldSet.newBuilder()
            .addField(1, UnknownFieldSet.Field.newBuilder().addVarint(1).build()).build()).build())
        .build();
  }

  private static byte[] httpMessage(byte[] record) {
    return field(1, field(1, record).toByteArray()).toByteArray();
  }

  private static byte[] withField(HTTPServiceMeshMetric m, int field, byte[] value) {
    return m.toByteString().concat(field(field, value)).toByteArray();
  }

  private static ByteString field(int field, byte[] value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    writeVarint(out, field << 3 | 2);
    writeVarint(out, value.length);
    out.writeBytes(value);
    return ByteString.copyFrom(out.toByteArray());
  }

  private static void writeVarint(ByteArrayOutputStream out, int v) {
    while ((v & ~0x7F) != 0) {
      out.write((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    out.write(v);
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }
}
