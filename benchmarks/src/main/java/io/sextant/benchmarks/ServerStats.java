package io.sextant.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** What we read about the server: its Prometheus {@code /metrics}, and /proc for its memory and CPU. */
final class ServerStats {
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(2)).build();
  private final URI metricsUri;

  ServerStats(String httpHostPort) {
    this.metricsUri = URI.create("http://" + httpHostPort + "/metrics");
  }

  /** One scrape; throws if the server does not answer. */
  Scrape scrape() throws IOException, InterruptedException {
    HttpRequest req = HttpRequest.newBuilder(metricsUri).timeout(Duration.ofSeconds(5)).GET().build();
    HttpResponse<String> res = http.send(req, HttpResponse.BodyHandlers.ofString());
    if (res.statusCode() != 200) {
      throw new IOException(metricsUri + " answered " + res.statusCode());
    }
    return Scrape.parse(res.body());
  }

  /** A scrape, or null (with the reason on stderr) if the server did not answer. */
  Scrape tryScrape() {
    try {
      return scrape();
    } catch (IOException e) {
      System.err.println("warning: cannot read " + metricsUri + ": " + e);
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** Parsed Prometheus text exposition: samples by metric name. */
  static final class Scrape {
    record Sample(String labels, double value) {}

    private final Map<String, List<Sample>> byName;

    private Scrape(Map<String, List<Sample>> byName) {
      this.byName = byName;
    }

    static Scrape parse(String text) {
      Map<String, List<Sample>> out = new HashMap<>();
      for (String line : text.split("\n")) {
        if (line.isEmpty() || line.charAt(0) == '#') {
          continue;
        }
        int brace = line.indexOf('{');
        int space = line.indexOf(' ');
        String name;
        String labels = "";
        String rest;
        if (brace >= 0 && (space < 0 || brace < space)) {
          int close = line.lastIndexOf('}');
          if (close < brace) {
            continue;
          }
          name = line.substring(0, brace);
          labels = line.substring(brace + 1, close);
          rest = line.substring(close + 1).trim();
        } else if (space > 0) {
          name = line.substring(0, space);
          rest = line.substring(space + 1).trim();
        } else {
          continue;
        }
        String[] fields = rest.split("\\s+");
        try {
          out.computeIfAbsent(name, n -> new ArrayList<>()).add(new Sample(labels, Double.parseDouble(fields[0])));
        } catch (NumberFormatException e) {
          // NaN/Inf are parsed by Double; anything else is not a sample we need
        }
      }
      return new Scrape(out);
    }

    /** Sum over all samples of a metric whose labels contain every given fragment (e.g. {@code kind="call"}). */
    double sum(String name, String... labelFragments) {
      double total = 0;
      for (Sample s : byName.getOrDefault(name, List.of())) {
        if (matches(s, labelFragments)) {
          total += s.value();
        }
      }
      return total;
    }

    /** The first matching sample's value, or NaN if none. */
    double first(String name, String... labelFragments) {
      for (Sample s : byName.getOrDefault(name, List.of())) {
        if (matches(s, labelFragments)) {
          return s.value();
        }
      }
      return Double.NaN;
    }

    boolean has(String name) {
      return byName.containsKey(name);
    }

    /** Sums by the value of one label (rejected records by reason), of the samples matching every fragment. */
    Map<String, Double> byLabel(String name, String label, String... labelFragments) {
      Map<String, Double> out = new HashMap<>();
      for (Sample s : byName.getOrDefault(name, List.of())) {
        if (!matches(s, labelFragments)) {
          continue;
        }
        String key = label + "=\"";
        int i = s.labels().indexOf(key);
        String value = "?";
        if (i >= 0) {
          int end = s.labels().indexOf('"', i + key.length());
          value = s.labels().substring(i + key.length(), end < 0 ? s.labels().length() : end);
        }
        out.merge(value, s.value(), Double::sum);
      }
      return out;
    }

    private static boolean matches(Sample s, String[] fragments) {
      for (String f : fragments) {
        if (!s.labels().contains(f)) {
          return false;
        }
      }
      return true;
    }

    /** Records a receiver accepted: every receiver reports under the same names, by its tag ({@code mesh}). */
    long receiverAccepted(String receiver) {
      return (long) sum("sextant_receiver_records_accepted_total", "receiver=\"" + receiver + "\"");
    }

    /** Records the aggregator took in, all kinds. */
    long aggregatorAccepted() {
      return (long) sum("sextant_records_accepted_total");
    }

    /** Records of one kind ({@code call}, {@code kernel}, ...) the aggregator took in. */
    long aggregatorAccepted(String kind) {
      return (long) sum("sextant_records_accepted_total", "kind=\"" + kind + "\"");
    }

    long receiverRejected(String receiver) {
      return (long) sum("sextant_receiver_records_rejected_total", "receiver=\"" + receiver + "\"");
    }

    /** HTTP access-log entries the ALS receiver got (attributable or not). */
    long alsHttpEntries() {
      return (long) sum("sextant_als_entries_total", "kind=\"http\"");
    }

    /** Access-log entries (or records derived from them) the ALS receiver dropped, all reasons. */
    long alsDropped() {
      return (long) sum("sextant_als_entries_dropped_total");
    }

    /** Call records the aggregator took in (from any receiver). */
    long aggregatorCalls() {
      return aggregatorAccepted("call");
    }
  }

  /** Resident set size in bytes, or -1 if unknown. */
  static long rssBytes(long pid) {
    return statusKb(pid, "VmRSS:") * 1024;
  }

  /** The kernel's peak resident set size (high water mark) in bytes, or -1. */
  static long peakRssBytes(long pid) {
    return statusKb(pid, "VmHWM:") * 1024;
  }

  private static long statusKb(long pid, String key) {
    if (pid <= 0) {
      return -1;
    }
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (line.startsWith(key)) {
          return Long.parseLong(line.substring(key.length()).trim().split("\\s+")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      // the process is gone, or this is not Linux
    }
    return -1;
  }

  /** User + system CPU time of a process in nanoseconds from /proc/pid/stat, or -1. */
  static long cpuNanos(long pid) {
    if (pid <= 0) {
      return -1;
    }
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
      // After "pid (comm) ": state is field 3, utime field 14, stime field 15.
      long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
      return ticks * (1_000_000_000L / CLOCK_TICKS);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** USER_HZ; 100 on every mainstream Linux build. */
  private static final long CLOCK_TICKS = 100;
}
