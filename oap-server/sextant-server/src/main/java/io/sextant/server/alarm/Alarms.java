package io.sextant.server.alarm;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.storage.StorageComponent;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.CoreConfig;
import io.sextant.core.alarm.AlarmEngine;
import io.sextant.core.alarm.AlarmQueries;
import io.sextant.core.alarm.AlarmRules;
import io.sextant.core.alarm.AlarmSettings;
import io.sextant.core.alarm.AlarmSettingsException;
import io.sextant.core.alarm.RuleEvaluator;
import io.sextant.core.alarm.hook.HookDispatcher;
import io.sextant.core.metric.MetricCatalog;
import io.sextant.server.config.AlarmConfig;
import io.sextant.server.config.ConfigException;
import io.sextant.server.security.WatchedFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * Alarms as the server runs them: the settings file read at start (a bad one stops start-up with
 * every problem listed) and re-read when it changes (a bad change is logged and the last good rules
 * stay), every rule evaluated on a thread of its own each {@code alarm.evaluationIntervalSeconds},
 * hooks called from a bounded queue.
 */
public final class Alarms implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Alarms.class);

  private final AlarmRules rules;
  private final AlarmQueries queries;
  private final AlarmEngine engine;
  private final RuleEvaluator evaluator;
  private final HookDispatcher dispatcher;
  private final WatchedFile file;
  private final Counter reloadFailures;
  private final int intervalSeconds;
  private final ScheduledExecutorService schedule =
      Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "sextant-alarm"));
  /** Writes delivery outcomes back, so that a slow store never holds up the hook threads. */
  private final ExecutorService settle = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "sextant-alarm-settle");
    t.setDaemon(true);
    return t;
  });

  public Alarms(AlarmConfig config, CoreConfig core, StorageComponent storage, MetricCatalog catalog,
      TimeBuckets buckets, MeterRegistry registry) {
    this.rules = new AlarmRules(storage::management, catalog);
    this.queries = new AlarmQueries(() -> storage, catalog::layerOf);
    String path = config.settingsFile();
    this.file = path.isBlank() ? null : new WatchedFile(path);
    this.reloadFailures = Counter.builder("sextant_alarm_settings_reload_failures")
        .description("changes of the alarm settings file that could not be used (the last good rules stay)")
        .register(registry);
    if (file != null) {
      try {
        rules.useFile(read(file.changed(), path, catalog));
      } catch (IOException e) {
        throw new ConfigException(List.of("alarm.settingsFile: cannot read " + path + ": " + e.getMessage()));
      } catch (AlarmSettingsException e) {
        throw new ConfigException(e.problems().stream().map(p -> path + ": " + p).toList());
      }
    }
    this.dispatcher = new HookDispatcher(config.hookQueueSize(), config.hookAttempts(), Duration.ofSeconds(1),
        config.hookTimeout(), registry);
    long closedAfterMillis = core.flusher().graceMinutes() * 60_000L + core.flusher().closedIntervalMillis()
        + config.settle().toMillis();
    this.evaluator = new RuleEvaluator(storage, catalog, buckets, config.maxEntitiesPerRule());
    this.engine = new AlarmEngine(storage, evaluator, buckets, rules, dispatcher, settle, closedAfterMillis,
        config.takeover().toMillis(), config.maxAlarmedEntitiesPerRule(), registry);
    this.intervalSeconds = config.evaluationIntervalSeconds();
  }

  @SuppressWarnings("unchecked")
  private static AlarmSettings read(byte[] yaml, String path, MetricCatalog catalog) {
    Object root;
    try {
      root = new Yaml(new SafeConstructor(new LoaderOptions())).load(new String(yaml, StandardCharsets.UTF_8));
    } catch (RuntimeException e) {
      throw new AlarmSettingsException(List.of("not YAML: " + e.getMessage()));
    }
    if (root != null && !(root instanceof Map)) {
      throw new AlarmSettingsException(List.of("expected a map with rules and hooks"));
    }
    return AlarmSettings.parse((Map<String, Object>) root, catalog);
  }

  public void start(int fileCheckSeconds) {
    Future<?> unusedTicks = schedule.scheduleWithFixedDelay(this::tick, intervalSeconds, intervalSeconds,
        TimeUnit.SECONDS);
    if (file != null) {
      Future<?> unusedChecks = schedule.scheduleWithFixedDelay(this::reread, fileCheckSeconds, fileCheckSeconds,
          TimeUnit.SECONDS);
    }
    LOG.info("alarms: {} rules from {}, {} hooks", rules.file().rules().size(),
        file == null ? "no settings file" : file.path(), rules.file().hooks().size());
  }

  private void tick() {
    try {
      engine.tick();
    } catch (RuntimeException e) {
      LOG.warn("alarm evaluation failed; the next minute tries again", e);
    }
  }

  private void reread() {
    try {
      byte[] changed = file.changed();
      if (changed != null) {
        rules.useFile(read(changed, file.path().toString(), rules.catalog()));
        LOG.info("alarm settings re-read from {}: {} rules", file.path(), rules.file().rules().size());
      }
    } catch (IOException | AlarmSettingsException e) {
      reloadFailures.increment();
      LOG.warn("alarm settings {} changed but cannot be used, keeping the last good ones: {}", file.path(),
          e.getMessage());
    }
  }

  public AlarmRules rules() {
    return rules;
  }

  /** The one {@link AlarmQueries}: the GraphQL alarm fields read through it. */
  public AlarmQueries queries() {
    return queries;
  }

  public AlarmEngine engine() {
    return engine;
  }

  /** The runtime status endpoints, naming this collector by {@code address} ({@code host_port}). */
  public AlarmStatus status(String address) {
    return new AlarmStatus(rules, engine, evaluator, address);
  }

  @Override
  public void close() {
    schedule.shutdownNow();
    dispatcher.close();
    settle.shutdown();
  }
}
