package io.sextant.benchmarks;

/** The load generator's {@code --key=value} options. */
final class LoadOptions extends CliOptions {
  private LoadOptions() {
    super("LoadGenerator");
    opt("target", "127.0.0.1:11800", "gRPC address of the Sextant server");
    opt("http", "127.0.0.1:12800", "HTTP address of the server, for /metrics");
    opt("protocol", "mesh", "mesh = SkyWalking ServiceMeshMetricService/collect; als = Envoy AccessLogService/"
        + "StreamAccessLogs as Istio proxies send it (one stream per proxy, HTTP entries); rover = SkyWalking Rover's"
        + " EBPFAccessLogService/collect (one stream per node, kernel and HTTP logs of the pods' connections)");
    opt("duration", "60", "seconds to send for");
    opt("rate", "0", "records (als: access-log entries; rover: kernel and HTTP logs) per second in total;"
        + " 0 = as fast as possible");
    opt("streams", "2", "concurrent client streams, each open for the whole run like a sidecar's"
        + " (als: stream i is proxy i of the topology, round robin over services; rover: the Rover of node i)");
    opt("batch", "1", "records per ServiceMeshMetrics message; als: entries per StreamAccessLogsMessage"
        + " (Envoy flushes several at once: --batch=10 recommended); rover: kernel logs (syscalls) per HTTP"
        + " exchange's message, at least 2, a write and a read (each message also carries the exchange)");
    opt("services", "10", "services (random topology)");
    opt("instances-per-service", "2", "pods per service (per version in bookinfo)");
    opt("endpoints", "50", "endpoints in total, spread over the services");
    opt("topology", "bookinfo", "bookinfo | random");
    opt("tcp-ratio", "0.05", "share of records that are TCP flows (mesh only; als sends HTTP entries)");
    opt("error-ratio", "0.02", "share of calls that fail");
    opt("server-pid", "", "pid of the server, to read its RSS and CPU from /proc");
    opt("inprocess", "false", "start a Sextant server (memory store, free ports) inside this JVM");
    opt("verify", "true", "wait for the server to account for every record sent; exit 1 if it does not");
    opt("seed", "42", "seed of the topology and the traffic");
    opt("backfill-minutes", "0", "replay the last N minutes during the run, in order: calls start N-1 minutes"
        + " back and end at now, so an hour of history exists after one run (0: off)");
    opt("backfill-end", "0", "mesh: epoch milliseconds at which the replay ends (0: the run's end), so runs one after"
        + " another (several collectors, or one restarted) write the same minutes");
    opt("pool", "8192", "records pre-built per pool (a fresh pool is built every second; als, rover: split over"
        + " the streams)");
    opt("window", "64", "messages a stream may have queued in the client before waiting for onReady");
    opt("report", "5", "seconds between progress lines");
    opt("rotate-bytes", "0", "complete and reopen a stream before it carries this many bytes; 0 = never, as a sidecar");
    opt("client", "chunked", "chunked = messages serialized in advance and written in chunks of up to 16 KB, as an"
        + " HTTP/2 client writes what it buffered (each message is still its own gRPC message); stub = a"
        + " generated gRPC stub writing each message on its own (costs the generator several times more CPU)");
    opt("tls-ca", "", "PEM CA certificate: connect to the gRPC port over TLS trusting it (empty: plain text)");
    opt("token", "", "sent in the 'authentication' metadata as SkyWalking's clients send it (empty: none)");
    opt("connect-when-ready", "false", "after a stream ends, open the next only while /readyz on --http answers 200,"
        + " as sidecars resolving a headless Service do: a restarted server gets its streams back once ready");
    opt("connection-per-stream", "true", "give each stream its own HTTP/2 connection, as separate sidecars have");
  }

  static LoadOptions parse(String[] args) {
    LoadOptions o = new LoadOptions();
    o.apply(args);
    return o;
  }

  @Override
  protected void validate() {
    if (integer("duration") < 1 || integer("streams") < 1 || integer("batch") < 1 || integer("window") < 1
        || integer("pool") < 1 || integer("report") < 1 || integer("endpoints") < 1 || integer("services") < 1
        || integer("instances-per-service") < 1) {
      throw new IllegalArgumentException("duration, streams, batch, window, pool, report, services, "
          + "instances-per-service and endpoints must be at least 1");
    }
    if (longValue("rate") < 0 || ratio("tcp-ratio") < 0 || ratio("error-ratio") < 0
        || ratio("tcp-ratio") > 1 || ratio("error-ratio") > 1) {
      throw new IllegalArgumentException("rate must be >= 0, ratios within [0, 1]");
    }
    if (!string("topology").equals("bookinfo") && !string("topology").equals("random")) {
      throw new IllegalArgumentException("--topology must be bookinfo or random");
    }
    if (!string("protocol").equals("mesh") && !als() && !rover()) {
      throw new IllegalArgumentException("--protocol must be mesh, als or rover");
    }
    if (!string("client").equals("chunked") && !string("client").equals("stub")) {
      throw new IllegalArgumentException("--client must be chunked or stub");
    }
    if (longValue("backfill-end") < 0 || (longValue("backfill-end") > 0 && integer("backfill-minutes") == 0)) {
      throw new IllegalArgumentException("--backfill-end needs --backfill-minutes and is epoch milliseconds");
    }
    if (!string("protocol").equals("mesh") && longValue("backfill-end") > 0) {
      throw new IllegalArgumentException("--backfill-end is for --protocol=mesh");
    }
    if (integer("backfill-minutes") < 0 || integer("backfill-minutes") > 1439) {
      throw new IllegalArgumentException("--backfill-minutes must be within 0..1439 (the server refuses records older"
          + " than core.maxLateMinutes, 1440 by default)");
    }
  }

  boolean als() {
    return string("protocol").equals("als");
  }

  boolean rover() {
    return string("protocol").equals("rover");
  }
}
