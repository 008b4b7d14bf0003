package io.sextant.api.receiver;

/**
 * Typical client traffic of a receiver's protocol, which the server sends before it reports ready
 * to a scratch copy of the receiver on a loopback port, aggregated into a throwaway sink: the
 * receiver's decoding and the aggregation are compiled before real streams arrive, and nothing
 * sent is stored or counted. A fresh JVM spends its first half minute of real traffic compiling
 * that path, on the cores the first dashboards need.
 */
public interface WarmUpTraffic {
  /**
   * Sends one round of typical client messages (a few hundred records, the protocol's common
   * shapes) over stubs made by {@code stubs}, and returns once the server has answered every
   * stream: the number of records sent. Throws if the server refused any of them.
   */
  int round(Stubs stubs) throws Exception;

  /** Makes client stubs (e.g. {@code ServiceMeshMetricServiceStub.class}) to the scratch server. */
  interface Stubs {
    <T> T stub(Class<T> stubType);
  }
}
