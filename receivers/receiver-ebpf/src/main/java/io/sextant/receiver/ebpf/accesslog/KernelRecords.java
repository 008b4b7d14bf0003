package io.sextant.receiver.ebpf.accesslog;

import io.sextant.api.model.KernelField;
import io.sextant.api.model.KernelOperation;
import io.sextant.api.model.KernelRecord;
import io.sextant.api.model.Layer;
import java.util.Locale;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogHTTPProtocol;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogKernelLog;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogKernelReadOperation;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogKernelWriteOperation;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.EBPFTimestamp;

/**
 * Rover's kernel and protocol logs as {@link KernelRecord}s, each number read where SkyWalking's
 * access-log handler reads it. Rover's timestamps are nanoseconds since its node booted; {@code
 * bootNanos} is the boot time since the epoch.
 */
final class KernelRecords {
  private KernelRecords() {}

  /** The HTTP method as SkyWalking spells it in endpoint names ({@code GET}). */
  static String method(AccessLogHTTPProtocol http) {
    return http.getRequest().getMethod().name().toUpperCase(Locale.ROOT);
  }

  /** One kernel operation; null when the log names none. */
  static KernelRecord kernel(Connection c, long bootNanos, AccessLogKernelLog log) {
    long[] v = new long[KernelField.count()];
    return switch (log.getOperationCase()) {
      case CONNECT -> {
        var op = log.getConnect();
        v[KernelField.DURATION.ordinal()] = duration(op.getStartTime(), op.getEndTime());
        yield record(c, bootNanos, op.getStartTime(), KernelOperation.CONNECT, op.getSuccess(), v);
      }
      case ACCEPT -> {
        var op = log.getAccept();
        v[KernelField.DURATION.ordinal()] = duration(op.getStartTime(), op.getEndTime());
        yield record(c, bootNanos, op.getStartTime(), KernelOperation.ACCEPT, false, v);
      }
      case CLOSE -> {
        var op = log.getClose();
        v[KernelField.DURATION.ordinal()] = duration(op.getStartTime(), op.getEndTime());
        yield record(c, bootNanos, op.getStartTime(), KernelOperation.CLOSE, op.getSuccess(), v);
      }
      case READ -> read(c, bootNanos, log.getRead(), v);
      case WRITE -> write(c, bootNanos, log.getWrite(), v);
      case OPERATION_NOT_SET -> null;
    };
  }

  private static KernelRecord read(Connection c, long bootNanos, AccessLogKernelReadOperation op, long[] v) {
    v[KernelField.DURATION.ordinal()] = duration(op.getStartTime(), op.getEndTime());
    v[KernelField.L4_DURATION.ordinal()] = op.getL4Metrics().getTotalDuration();
    var l3 = op.getL3Metrics();
    v[KernelField.L3_DURATION.ordinal()] = l3.getTotalDuration();
    v[KernelField.L3_RCV_DURATION.ordinal()] = l3.getTotalRecvDuration();
    v[KernelField.L3_LOCAL_DURATION.ordinal()] = l3.getTotalLocalDuration();
    v[KernelField.NETFILTER_COUNT.ordinal()] = l3.getTotalNetFilterCount();
    v[KernelField.NETFILTER_DURATION.ordinal()] = l3.getTotalNetFilterDuration();
    var l2 = op.getL2Metrics();
    v[KernelField.PACKAGES.ordinal()] = Integer.toUnsignedLong(l2.getTotalPackageCount());
    v[KernelField.PACKAGE_SIZE.ordinal()] = l2.getTotalPackageSize();
    v[KernelField.L2_TO_QUEUE_DURATION.ordinal()] = l2.getTotalPackageToQueueDuration();
    v[KernelField.L2_FROM_QUEUE_DURATION.ordinal()] = l2.getTotalRcvPackageFromQueueDuration();
    return record(c, bootNanos, op.getStartTime(), KernelOperation.READ, false, v);
  }

  private static KernelRecord write(Connection c, long bootNanos, AccessLogKernelWriteOperation op, long[] v) {
    v[KernelField.DURATION.ordinal()] = duration(op.getStartTime(), op.getEndTime());
    var l4 = op.getL4Metrics();
    v[KernelField.L4_DURATION.ordinal()] = l4.getTotalDuration();
    v[KernelField.PACKAGES.ordinal()] = l4.getTotalTransmitPackageCount();
    v[KernelField.RETRANSMITS.ordinal()] = l4.getTotalRetransmitPackageCount();
    v[KernelField.PACKAGE_SIZE.ordinal()] = l4.getTotalPackageSize();
    var l3 = op.getL3Metrics();
    v[KernelField.L3_DURATION.ordinal()] = l3.getTotalDuration();
    v[KernelField.L3_LOCAL_DURATION.ordinal()] = l3.getTotalLocalDuration();
    v[KernelField.L3_OUTPUT_DURATION.ordinal()] = l3.getTotalOutputDuration();
    v[KernelField.RESOLVE_MAC_COUNT.ordinal()] = l3.getTotalResolveMACCount();
    v[KernelField.RESOLVE_MAC_DURATION.ordinal()] = l3.getTotalResolveMACDuration();
    v[KernelField.NETFILTER_COUNT.ordinal()] = l3.getTotalNetFilterCount();
    v[KernelField.NETFILTER_DURATION.ordinal()] = l3.getTotalNetFilterDuration();
    var l2 = op.getL2Metrics();
    v[KernelField.L2_DURATION.ordinal()] = l2.getTotalDuration();
    v[KernelField.L2_ENTER_QUEUE_COUNT.ordinal()] = l2.getTotalEnterQueueBufferCount();
    v[KernelField.L2_READY_SEND_DURATION.ordinal()] = l2.getTotalReadySendDuration();
    v[KernelField.L2_NET_DEVICE_SEND_DURATION.ordinal()] = l2.getTotalNetDeviceSendDuration();
    return record(c, bootNanos, op.getStartTime(), KernelOperation.WRITE, false, v);
  }

  /**
   * One HTTP exchange; {@code endpoint} is its name on the server side (empty on the client side,
   * where SkyWalking keeps no endpoint). Latency in milliseconds, success below status 500.
   */
  static KernelRecord http(Connection c, long bootNanos, AccessLogHTTPProtocol http, String endpoint) {
    long[] v = new long[KernelField.count()];
    v[KernelField.LATENCY.ordinal()] = duration(http.getStartTime(), http.getEndTime()) / 1_000_000;
    v[KernelField.REQ_HEADER_SIZE.ordinal()] = http.getRequest().getSizeOfHeadersBytes();
    v[KernelField.REQ_BODY_SIZE.ordinal()] = http.getRequest().getSizeOfBodyBytes();
    v[KernelField.RESP_HEADER_SIZE.ordinal()] = http.getResponse().getSizeOfHeadersBytes();
    v[KernelField.RESP_BODY_SIZE.ordinal()] = http.getResponse().getSizeOfBodyBytes();
    int status = http.getResponse().getStatusCode();
    return new KernelRecord(millis(bootNanos, http.getStartTime()), Layer.K8S_SERVICE, c.role(),
        c.local().service(), c.local().instance(), c.remote().service(), c.remote().instance(),
        KernelOperation.HTTP, status < 500, status, endpoint, c.protocol(), c.tlsMode(), v);
  }

  private static KernelRecord record(Connection c, long bootNanos, EBPFTimestamp start, KernelOperation op,
      boolean success, long[] v) {
    return new KernelRecord(millis(bootNanos, start), Layer.K8S_SERVICE, c.role(), c.local().service(),
        c.local().instance(), c.remote().service(), c.remote().instance(), op, success, 0, "", c.protocol(),
        c.tlsMode(), v);
  }

  static long millis(long bootNanos, EBPFTimestamp t) {
    return (bootNanos + t.getOffset().getOffset()) / 1_000_000;
  }

  private static long duration(EBPFTimestamp start, EBPFTimestamp end) {
    return Math.max(0, end.getOffset().getOffset() - start.getOffset().getOffset());
  }
}
