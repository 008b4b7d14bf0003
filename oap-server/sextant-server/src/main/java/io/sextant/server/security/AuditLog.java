package io.sextant.server.security;

import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.text.Text;
import io.sextant.query.graphql.Caller;
import io.sextant.query.graphql.WriteAudit;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One log line per GraphQL write on the {@code sextant.audit} logger (its own appender if wanted),
 * with who, role, operation, target and outcome, and the counters
 * {@code sextant_graphql_writes_total{operation,outcome}} and
 * {@code sextant_graphql_refused_writes_total{operation,reason}}.
 */
public final class AuditLog implements WriteAudit {
  private static final Logger AUDIT = LoggerFactory.getLogger("sextant.audit");
  private static final int MAX_DETAIL = 300;
  private final MeterRegistry registry;

  public AuditLog(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void ran(Caller caller, String operation, String target, String outcome, String detail) {
    registry.counter("sextant_graphql_writes", "operation", operation, "outcome", outcome).increment();
    AUDIT.info("write who={} role={} operation={} target=\"{}\" outcome={}{}", caller.name(), role(caller),
        operation, target, outcome, detail.isEmpty() ? "" : " detail=\"" + shortened(detail) + "\"");
  }

  @Override
  public void refused(Caller caller, String operation, String reason) {
    registry.counter("sextant_graphql_refused_writes", "operation", operation, "reason", reason).increment();
    AUDIT.info("write who={} role={} operation={} outcome=refused reason={}", caller.name(), role(caller),
        operation, reason);
  }

  private static String role(Caller caller) {
    return caller.role().name().toLowerCase(Locale.ROOT);
  }

  private static String shortened(String detail) {
    return Text.shortened(detail.replace('\n', ' ').replace('"', '\''), MAX_DETAIL);
  }
}
