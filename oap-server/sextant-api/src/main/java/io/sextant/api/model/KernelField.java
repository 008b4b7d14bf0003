package io.sextant.api.model;

/**
 * The numbers a {@link KernelRecord} carries, one slot each; which ones an operation fills is
 * Rover's access-log protocol ({@code ebpf/accesslog.proto}). Kernel durations are nanoseconds,
 * {@link #LATENCY} milliseconds, sizes bytes. Reads and writes share the slots that mean the same
 * on both paths ({@link #PACKAGES}: packets sent, retransmits included, or packets received).
 */
public enum KernelField {
  /** The operation, start to end (ns). */
  DURATION,
  L4_DURATION,
  PACKAGES,
  RETRANSMITS,
  PACKAGE_SIZE,
  L3_DURATION,
  L3_LOCAL_DURATION,
  L3_OUTPUT_DURATION,
  L3_RCV_DURATION,
  RESOLVE_MAC_COUNT,
  RESOLVE_MAC_DURATION,
  NETFILTER_COUNT,
  NETFILTER_DURATION,
  L2_DURATION,
  L2_ENTER_QUEUE_COUNT,
  L2_READY_SEND_DURATION,
  L2_NET_DEVICE_SEND_DURATION,
  L2_TO_QUEUE_DURATION,
  L2_FROM_QUEUE_DURATION,
  /** An HTTP exchange, first request byte to last response byte (ms). */
  LATENCY,
  REQ_HEADER_SIZE,
  REQ_BODY_SIZE,
  RESP_HEADER_SIZE,
  RESP_BODY_SIZE;

  private static final KernelField[] ALL = values();

  /** The fields in slot order. */
  public static KernelField[] all() {
    return ALL.clone();
  }

  public static int count() {
    return ALL.length;
  }
}
