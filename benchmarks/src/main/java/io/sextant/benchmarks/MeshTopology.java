package io.sextant.benchmarks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.IntFunction;
import org.apache.skywalking.apm.network.common.v3.KeyStringValuePair;

/**
 * A service mesh to simulate: services with pods and endpoints, and the edges between them. Built
 * deterministically from a seed, so two runs with the same options produce the same entities.
 */
final class MeshTopology {
  /** What a service speaks, and so what an edge to it carries. */
  enum Kind {
    HTTP,
    GRPC,
    TCP
  }

  /** One pod with its sidecar. Properties are what the sidecar reports about its own node. */
  static final class Instance {
    final String name;
    final Map<String, String> properties;
    final List<KeyStringValuePair> protoProperties;

    Instance(String name, Map<String, String> properties) {
      this.name = name;
      this.properties = Map.copyOf(properties);
      List<KeyStringValuePair> pairs = new ArrayList<>();
      properties.forEach((k, v) -> pairs.add(KeyStringValuePair.newBuilder().setKey(k).setValue(v).build()));
      this.protoProperties = List.copyOf(pairs);
    }
  }

  static final class Service {
    final String name;
    final Kind kind;
    final List<Instance> instances;
    /** How many endpoint names this service can have (fixed names plus a template's). */
    final int endpointCapacity;
    final IntFunction<String> endpointName;
    /** An Istio gateway (its proxy is a router, not a sidecar); bookinfo's istio-ingressgateway. */
    final boolean gateway;
    String[] endpoints = new String[0];

    Service(String name, Kind kind, List<Instance> instances, List<String> fixed, IntFunction<String> more) {
      this.name = name;
      this.kind = kind;
      this.instances = List.copyOf(instances);
      this.endpointCapacity = kind == Kind.TCP ? 0 : more == null ? fixed.size() : Integer.MAX_VALUE;
      this.endpointName = k -> k < fixed.size() ? fixed.get(k) : more.apply(k - fixed.size());
      this.gateway = name.startsWith("istio-") && name.endsWith("gateway");
    }
  }

  /**
   * Calls from {@code source} (null: a client outside the mesh, which has no sidecar, so only the
   * server side reports) to {@code dest}. Latency is lognormal around {@code medianMillis}.
   */
  static final class Edge {
    final Service source;
    final List<Instance> sourceInstances;
    final Service dest;
    final double weight;
    final double medianMillis;
    final double sigma;
    final String tlsMode;

    Edge(Service source, List<Instance> sourceInstances, Service dest, double weight, double medianMillis,
        double sigma, String tlsMode) {
      this.source = source;
      this.sourceInstances = sourceInstances == null ? List.of() : List.copyOf(sourceInstances);
      this.dest = dest;
      this.weight = weight;
      this.medianMillis = medianMillis;
      this.sigma = sigma;
      this.tlsMode = tlsMode;
    }

    Kind kind() {
      return dest.kind;
    }
  }

  final String name;
  final List<Service> services;
  final List<Edge> l7Edges;
  final List<Edge> tcpEdges;
  /** Cumulative weights of {@link #l7Edges}, for weighted picking. */
  final double[] l7Cumulative;

  private MeshTopology(String name, List<Service> services, List<Edge> edges, int endpoints) {
    this.name = name;
    this.services = List.copyOf(services);
    List<Edge> l7 = new ArrayList<>();
    List<Edge> tcp = new ArrayList<>();
    for (Edge e : edges) {
      (e.kind() == Kind.TCP ? tcp : l7).add(e);
    }
    this.l7Edges = Collections.unmodifiableList(l7);
    this.tcpEdges = Collections.unmodifiableList(tcp);
    this.l7Cumulative = new double[l7.size()];
    double sum = 0;
    for (int i = 0; i < l7.size(); i++) {
      sum += l7.get(i).weight;
      l7Cumulative[i] = sum;
    }
    allocateEndpoints(endpoints);
  }

  static MeshTopology of(String topology, int services, int instancesPerService, int endpoints, long seed) {
    return switch (topology) {
      case "bookinfo" -> bookinfo(instancesPerService, endpoints, seed);
      case "random" -> random(services, instancesPerService, endpoints, seed);
      default -> throw new IllegalArgumentException("unknown topology '" + topology + "' (bookinfo|random)");
    };
  }

  /**
   * Istio's bookinfo: an ingress gateway in front of productpage, which calls details and reviews
   * (v1, v2, v3); reviews v2 and v3 call ratings (gRPC here), and ratings reads mongodb over TCP.
   */
  static MeshTopology bookinfo(int instancesPerService, int endpoints, long seed) {
    Random r = new Random(seed);
    int n = Math.max(1, instancesPerService);
    List<String> pages = List.of("GET:/productpage", "GET:/static/bootstrap/css/bootstrap.min.css",
        "GET:/static/jquery.min.js", "POST:/login", "GET:/logout");
    Service gateway = new Service("istio-ingressgateway", Kind.HTTP,
        pods(r, "istio-ingressgateway", "istio-system", List.of("1.22"), n), pages, k -> "GET:/api/v1/products/" + k);
    Service productpage = new Service("productpage", Kind.HTTP, pods(r, "productpage", "bookinfo", List.of("v1"), n),
        pages, k -> "GET:/api/v1/products/" + k);
    Service details = new Service("details", Kind.HTTP, pods(r, "details", "bookinfo", List.of("v1"), n),
        List.of(), k -> "GET:/details/" + k);
    Service reviews = new Service("reviews", Kind.HTTP, pods(r, "reviews", "bookinfo", List.of("v1", "v2", "v3"), n),
        List.of(), k -> "GET:/reviews/" + k);
    Service ratings = new Service("ratings", Kind.GRPC, pods(r, "ratings", "bookinfo", List.of("v1"), n),
        List.of("/bookinfo.Ratings/GetRatings", "/bookinfo.Ratings/GetRating", "/bookinfo.Ratings/PostRating",
            "/grpc.health.v1.Health/Check"), null);
    Service mongodb = new Service("mongodb", Kind.TCP, pods(r, "mongodb", "bookinfo", List.of("v1"), 1),
        List.of(), null);
    List<Instance> reviewsCallingRatings = reviews.instances.stream()
        .filter(i -> !i.properties.get("version").equals("v1")).toList();
    List<Edge> edges = List.of(
        new Edge(null, null, gateway, 1.0, 60, 0.6, "NONE"),
        new Edge(gateway, gateway.instances, productpage, 1.0, 55, 0.6, "mTLS"),
        new Edge(productpage, productpage.instances, details, 1.0, 4, 0.5, "mTLS"),
        new Edge(productpage, productpage.instances, reviews, 1.0, 25, 0.7, "mTLS"),
        new Edge(reviews, reviewsCallingRatings, ratings, 0.67, 3, 0.5, "mTLS"),
        new Edge(ratings, ratings.instances, mongodb, 1.0, 2, 0.8, "mTLS"));
    return new MeshTopology("bookinfo", List.of(gateway, productpage, details, reviews, ratings, mongodb), edges,
        endpoints);
  }

  private static final String[] WORDS = {"orders", "payments", "users", "carts", "catalog", "inventory",
      "shipping", "search", "reviews", "accounts", "billing", "auth", "profile", "pricing", "media"};
  private static final String[] METHODS = {"GET", "GET", "POST", "PUT", "GET", "DELETE"};
  private static final String[] VERBS = {"Get", "List", "Create", "Update", "Delete", "Watch"};

  /**
   * {@code services} services, each calling 1-3 others chosen by a seeded Random, an external
   * client calling the first, and {@code max(1, services/10)} databases reached over TCP.
   */
  static MeshTopology random(int serviceCount, int instancesPerService, int endpoints, long seed) {
    Random r = new Random(seed);
    int n = Math.max(1, serviceCount);
    int width = Math.max(3, String.valueOf(n - 1).length());
    List<Service> services = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String name = String.format(Locale.ROOT, "svc-%0" + width + "d", i);
      String word = WORDS[i % WORDS.length];
      boolean grpc = r.nextDouble() < 0.2;
      IntFunction<String> names = grpc
          ? k -> "/" + word + ".v1." + capitalize(word) + "Service/" + VERBS[k % VERBS.length] + capitalize(word) + k
          : k -> METHODS[k % METHODS.length] + ":/api/v" + (1 + k % 2) + "/" + word + "/" + k;
      services.add(new Service(name, grpc ? Kind.GRPC : Kind.HTTP,
          pods(r, name, "ns-" + (i % 5), List.of("v" + (1 + r.nextInt(2))), Math.max(1, instancesPerService)),
          List.of(), names));
    }
    List<Service> databases = new ArrayList<>();
    for (int d = 0; d < Math.max(1, n / 10); d++) {
      String name = (d % 2 == 0 ? "mysql-" : "redis-") + d;
      databases.add(new Service(name, Kind.TCP, pods(r, name, "data", List.of("v1"), 1), List.of(), null));
    }
    List<Edge> edges = new ArrayList<>();
    edges.add(new Edge(null, null, services.get(0), 2.0, 40, 0.6, "NONE"));
    for (int i = 0; i < n && n > 1; i++) {
      Service source = services.get(i);
      int calls = Math.min(n - 1, 1 + r.nextInt(3));
      List<Integer> targets = new ArrayList<>();
      while (targets.size() < calls) {
        int j = r.nextInt(n);
        if (j != i && !targets.contains(j)) {
          targets.add(j);
        }
      }
      for (int j : targets) {
        edges.add(new Edge(source, source.instances, services.get(j), 0.2 + r.nextDouble() * 1.8,
            1 + r.nextInt(50), 0.4 + r.nextDouble() * 0.5, "mTLS"));
      }
    }
    boolean anyTcp = false;
    for (Service s : services) {
      if (r.nextDouble() < 0.3) {
        edges.add(new Edge(s, s.instances, databases.get(r.nextInt(databases.size())), 1.0,
            1 + r.nextInt(5), 0.8, "mTLS"));
        anyTcp = true;
      }
    }
    if (!anyTcp) {
      edges.add(new Edge(services.get(0), services.get(0).instances, databases.get(0), 1.0, 2, 0.8, "mTLS"));
    }
    List<Service> all = new ArrayList<>(services);
    all.addAll(databases);
    return new MeshTopology("random", all, edges, endpoints);
  }

  /** Spreads {@code total} endpoints over the L7 services, at least one each, round robin. */
  private void allocateEndpoints(int total) {
    List<Service> l7 = services.stream().filter(s -> s.endpointCapacity > 0).toList();
    int[] counts = new int[l7.size()];
    int assigned = 0;
    for (int i = 0; i < l7.size(); i++) {
      counts[i] = 1;
      assigned++;
    }
    boolean grew = true;
    while (assigned < total && grew) {
      grew = false;
      for (int i = 0; i < l7.size() && assigned < total; i++) {
        if (counts[i] < l7.get(i).endpointCapacity) {
          counts[i]++;
          assigned++;
          grew = true;
        }
      }
    }
    for (int i = 0; i < l7.size(); i++) {
      Service s = l7.get(i);
      s.endpoints = new String[counts[i]];
      for (int k = 0; k < counts[i]; k++) {
        s.endpoints[k] = s.endpointName.apply(k);
      }
    }
  }

  private static List<Instance> pods(Random r, String service, String namespace, List<String> versions,
      int perVersion) {
    List<Instance> out = new ArrayList<>();
    for (String version : versions) {
      String replicaSet = hex(r, 10);
      for (int i = 0; i < perVersion; i++) {
        String pod = service + "-" + version + "-" + replicaSet + "-" + alnum(r, 5);
        Map<String, String> props = new LinkedHashMap<>();
        props.put("pod", pod);
        props.put("namespace", namespace);
        props.put("version", version);
        props.put("node_name", "node-" + r.nextInt(8));
        props.put("ipv4s", "10.244." + r.nextInt(8) + "." + (2 + r.nextInt(250)));
        out.add(new Instance(pod, props));
      }
    }
    return out;
  }

  private static String hex(Random r, int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sb.append("0123456789abcdef".charAt(r.nextInt(16)));
    }
    return sb.toString();
  }

  private static String alnum(Random r, int n) {
    String chars = "bcdfghjklmnpqrstvwxz2456789";
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sb.append(chars.charAt(r.nextInt(chars.length())));
    }
    return sb.toString();
  }

  private static String capitalize(String s) {
    return Character.toUpperCase(s.charAt(0)) + s.substring(1);
  }

  int instanceCount() {
    return services.stream().mapToInt(s -> s.instances.size()).sum();
  }

  int endpointCount() {
    return services.stream().mapToInt(s -> s.endpoints.length).sum();
  }

  String describe() {
    return String.format(Locale.ROOT, "%s: %d services, %d instances, %d endpoints, %d L7 edges, %d TCP edges",
        name, services.size(), instanceCount(), endpointCount(), l7Edges.size(), tcpEdges.size());
  }
}
