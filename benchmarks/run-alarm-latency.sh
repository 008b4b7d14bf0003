#!/usr/bin/env bash
# Alarm latency against the packaged server as shipped: starts dist/target/sextant/bin/sextant
# with its own config/alarm-settings.yml plus one rule that a slow service breaks every minute and a
# webhook on 127.0.0.1:$WEBHOOK_PORT, runs io.sextant.benchmarks.AlarmLatency (live traffic of
# --services healthy services and one slow one), and reports each alarm's delay after the end of the
# minute that broke the rule, and the server's cost of evaluating every rule each minute.
# Builds nothing: package dist and this module first. Arguments go to AlarmLatency, e.g.
#   benchmarks/run-alarm-latency.sh --minutes=5 --services=500
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIST="${DIST:-$ROOT/dist/target/sextant}"
CLASSES="$ROOT/benchmarks/target/classes"
CLASSPATH_FILE="$ROOT/benchmarks/target/classpath.txt"
GRPC_PORT="${GRPC_PORT:-11800}"
HTTP_PORT="${HTTP_PORT:-12800}"
WEBHOOK_PORT="${WEBHOOK_PORT:-18999}"
SERVER_LOG="${SERVER_LOG:-$ROOT/benchmarks/target/alarm-server.log}"
SETTINGS="$ROOT/benchmarks/target/alarm-latency-settings.yml"

if [[ ! -x "$DIST/bin/sextant" || ! -f "$CLASSPATH_FILE" ]]; then
  echo "build first: mvn -B -q -o -DskipTests package (dist and benchmarks)" >&2
  exit 2
fi
mkdir -p "$(dirname "$SETTINGS")"
# The shipped rules, one more, and the webhook as the default hook.
sed '/^#hooks:/,$d' "$DIST/config/alarm-settings.yml" > "$SETTINGS"
cat >> "$SETTINGS" <<YAML
  alarm_latency_rule:
    expression: sum(service_resp_time > 1000) >= 1
    period: 1
    silence-period: 0
    include-names: [alarm-slow]
    message: Service {name} answers in more than 1000ms
hooks:
  webhook:
    default:
      is-default: true
      urls: [http://127.0.0.1:$WEBHOOK_PORT/alarm]
YAML

SEXTANT_SERVER_HOST=127.0.0.1 SEXTANT_SERVER_GRPC_PORT="$GRPC_PORT" SEXTANT_SERVER_HTTP_PORT="$HTTP_PORT" \
SEXTANT_CORE_TIMEZONE=UTC SEXTANT_ALARM_SETTINGS_FILE="$SETTINGS" \
  "$DIST/bin/sextant" >"$SERVER_LOG" 2>&1 &
SERVER_PID=$!
trap 'kill -TERM "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true' EXIT INT TERM
for _ in $(seq 1 120); do
  if curl -fs -o /dev/null "http://127.0.0.1:$HTTP_PORT/readyz" 2>/dev/null; then break; fi
  sleep 0.5
done
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
"$JAVA" -Xmx256m -cp "$CLASSES:$(cat "$CLASSPATH_FILE")" io.sextant.benchmarks.AlarmLatency \
  --target="127.0.0.1:$GRPC_PORT" --http="127.0.0.1:$HTTP_PORT" --webhook-port="$WEBHOOK_PORT" "$@"
