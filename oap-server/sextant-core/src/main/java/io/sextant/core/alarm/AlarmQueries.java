package io.sextant.core.alarm;

import io.sextant.api.id.EntityIds;
import io.sextant.api.model.Layer;
import io.sextant.api.model.Scope;
import io.sextant.api.storage.RecordQuery;
import io.sextant.api.storage.StorageComponent;
import io.sextant.api.storage.StoredRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Alarms as {@code getAlarm} asks for them: started in a time range, of a scope, whose message
 * holds a keyword, carrying every given tag (a tag without a value matches any value), newest first,
 * one page. At most {@value #MAX_MATCHES} alarms of the range are read and filtered.
 */
public final class AlarmQueries {
  public static final int MAX_MATCHES = 10_000;

  private final Supplier<StorageComponent> storage;

  private final Function<String, Optional<Layer>> layerOfMetric;

  public AlarmQueries(Supplier<StorageComponent> storage) {
    this(storage, metric -> Optional.empty());
  }

  /**
   * {@code layerOfMetric} says which layer a metric belongs to: an alarm is in the layers of the
   * metrics its rule read ({@code queryAlarms}' layer filter).
   */
  public AlarmQueries(Supplier<StorageComponent> storage, Function<String, Optional<Layer>> layerOfMetric) {
    this.storage = storage;
    this.layerOfMetric = layerOfMetric;
  }

  /** An entity an alarm may be about: a relation's ends ({@code id1} set), or one entity's id. */
  public record EntityFilter(String id0, String id1) {
    boolean matches(AlarmMessage m) {
      return id1 == null ? id0.equals(m.id0()) || id0.equals(m.id1()) : id0.equals(m.id0()) && id1.equals(m.id1());
    }
  }

  /**
   * What SkyWalking 11's {@code queryAlarms} narrows by beyond {@code getAlarm}: any of the
   * entities, the layer, any of the rules (an empty list or null: no narrowing); all must hold.
   */
  public record Narrowing(List<EntityFilter> entities, Layer layer, List<String> ruleNames) {
    public static final Narrowing NONE = new Narrowing(List.of(), null, List.of());

    public Narrowing {
      entities = entities == null ? List.of() : List.copyOf(entities);
      ruleNames = ruleNames == null ? List.of() : List.copyOf(ruleNames);
    }
  }

  /** A tag filter; {@code value} null matches any value of the key. */
  public record TagFilter(String key, String value) {}

  /** {@code scope}: the stored scope name ({@link io.sextant.api.model.Scope}), null for all. */
  public record Condition(long startMillis, long endMillis, String scope, String keyword, List<TagFilter> tags,
      int pageNum, int pageSize) {
    public Condition {
      tags = tags == null ? List.of() : List.copyOf(tags);
    }
  }

  public List<AlarmMessage> alarms(Condition c) {
    return alarms(c, Narrowing.NONE);
  }

  /** The alarms of {@code c} that {@code n} keeps ({@code queryAlarms}). */
  public List<AlarmMessage> alarms(Condition c, Narrowing n) {
    if (c.pageSize() < 0 || c.pageNum() < 0) {
      throw new IllegalArgumentException("paging needs a pageNum of 1 or more and a pageSize of 0 or more");
    }
    int page = Math.max(1, c.pageNum());
    long from = (long) c.pageSize() * (page - 1);
    if (from + c.pageSize() > MAX_MATCHES) {
      throw new IllegalArgumentException("pageNum × pageSize must not exceed " + MAX_MATCHES);
    }
    List<String> storeTags = new ArrayList<>();
    if (c.scope() != null && !c.scope().isEmpty()) {
      storeTags.add(StoredRecord.tag(AlarmRecords.SCOPE, c.scope()));
    }
    for (TagFilter t : c.tags()) {
      if (t.value() != null) {
        storeTags.add(StoredRecord.tag(AlarmRecords.TAG + t.key(), t.value()));
      }
    }
    String keyword = c.keyword() == null ? "" : c.keyword().toLowerCase(Locale.ROOT);
    List<AlarmMessage> matches = new ArrayList<>();
    Map<String, Set<Layer>> serviceLayers = new HashMap<>();
    for (StoredRecord r : read(c.startMillis(), c.endMillis(), storeTags)) {
      AlarmMessage m = AlarmRecords.fromRecord(r);
      if (m.alarmMessage().toLowerCase(Locale.ROOT).contains(keyword) && hasKeys(m, c.tags())
          && kept(m, n, serviceLayers)) {
        matches.add(m);
      }
    }
    matches.sort(Comparator.comparingLong(AlarmMessage::startTime).reversed().thenComparing(AlarmMessage::uuid));
    if (from >= matches.size()) {
      return List.of();
    }
    return List.copyOf(matches.subList((int) from, (int) Math.min(matches.size(), from + c.pageSize())));
  }

  private boolean kept(AlarmMessage m, Narrowing n, Map<String, Set<Layer>> serviceLayers) {
    if (!n.entities().isEmpty() && n.entities().stream().noneMatch(e -> e.matches(m))) {
      return false;
    }
    if (!n.ruleNames().isEmpty() && !n.ruleNames().contains(m.ruleName())) {
      return false;
    }
    return n.layer() == null || layers(m, serviceLayers).contains(n.layer());
  }

  /**
   * The layers of the metrics the alarm's rule read; for a rule that reads none (events), those of
   * the alarm's service, read once per service and query ({@code serviceLayers}).
   */
  private Set<Layer> layers(AlarmMessage m, Map<String, Set<Layer>> serviceLayers) {
    Set<Layer> layers = EnumSet.noneOf(Layer.class);
    if (m.snapshot() != null) {
      m.snapshot().metrics().forEach(v -> layerOfMetric.apply(v.metric()).ifPresent(layers::add));
    }
    if (!layers.isEmpty()) {
      return layers;
    }
    String serviceId;
    try {
      serviceId = serviceId(m);
    } catch (IllegalArgumentException e) {
      return layers; // an id that names no service: in no layer
    }
    return serviceId == null ? layers : serviceLayers.computeIfAbsent(serviceId, this::serviceLayers);
  }

  /** A service's layers from the metadata; names this build does not know are left out. */
  private Set<Layer> serviceLayers(String serviceId) {
    Set<Layer> layers = EnumSet.noneOf(Layer.class);
    storage.get().metadata().service(serviceId).ifPresent(s -> s.layers().forEach(l -> {
      try {
        layers.add(Layer.valueOf(l));
      } catch (IllegalArgumentException e) {
        // unknown to this build
      }
    }));
    return layers;
  }

  /** The service an alarm is about (a relation's source), or null for processes. */
  private static String serviceId(AlarmMessage m) {
    return switch (Scope.valueOf(m.scope())) {
      case SERVICE, SERVICE_RELATION -> m.id0();
      case SERVICE_INSTANCE, ENDPOINT, SERVICE_INSTANCE_RELATION -> EntityIds.parseChildId(m.id0()).serviceId();
      case PROCESS, PROCESS_RELATION -> null;
    };
  }

  /** Alarms started in each of the given consecutive ranges ({@code getAlarmTrend}). */
  public List<Integer> trend(List<long[]> ranges) {
    if (ranges.isEmpty()) {
      return List.of();
    }
    List<Integer> counts = new ArrayList<>();
    List<StoredRecord> all = read(ranges.get(0)[0], ranges.get(ranges.size() - 1)[1], List.of());
    for (long[] range : ranges) {
      counts.add((int) all.stream().filter(r -> r.timeMillis() >= range[0] && r.timeMillis() <= range[1]).count());
    }
    return counts;
  }

  /** The tag keys of alarms in the range, or the values of one key. */
  public List<String> tagKeys(long startMillis, long endMillis) {
    TreeSet<String> keys = new TreeSet<>();
    read(startMillis, endMillis, List.of()).forEach(r -> keys.addAll(AlarmRecords.fromRecord(r).tags().keySet()));
    return List.copyOf(keys);
  }

  public List<String> tagValues(String key, long startMillis, long endMillis) {
    TreeSet<String> values = new TreeSet<>();
    for (StoredRecord r : read(startMillis, endMillis, List.of())) {
      String v = AlarmRecords.fromRecord(r).tags().get(key);
      if (v != null) {
        values.add(v);
      }
    }
    return List.copyOf(values);
  }

  private List<StoredRecord> read(long startMillis, long endMillis, List<String> tags) {
    return storage.get().records().read(new RecordQuery(AlarmRecords.KIND, null, startMillis, endMillis, tags,
        MAX_MATCHES));
  }

  private static boolean hasKeys(AlarmMessage m, List<TagFilter> filters) {
    Map<String, String> tags = m.tags();
    return filters.stream().allMatch(f -> tags.containsKey(f.key()) && (f.value() == null
        || f.value().equals(tags.get(f.key()))));
  }
}
