#!/usr/bin/env bash
# The collector's write path to Elasticsearch, one build after another against one Elasticsearch:
# each packaged server in BUILDS receives RATE records/s (LoadGenerator, the live-reads data set)
# for DURATION s under its own index prefix and is stopped with SIGTERM. Printed per build: the
# server's CPU in cores for each 30-s window (the first is the warm-up; the rest steady state) and
# Elasticsearch's over the run, the server's CPU per record over the whole run, the _bulk request
# latency (p50 / p95 / p99, upper bounds of the histogram's buckets, ms), the documents written,
# and its last words on stopping (it must have written everything it accepted).
#
# Builds nothing: ./mvnw -o -q -DskipTests install first (dist, benchmarks, testkit). For a
# before/after, package the older commit in a worktree and interleave the two:
#   BUILDS="old=/tmp/old/dist/target/sextant new=dist/target/sextant old=... new=..." benchmarks/run-es-writes.sh
#
# Environment (defaults in brackets): BUILDS [new=dist/target/sextant], DURATION [150], RATE [20000],
# SERVICES [200], ENDPOINTS [5000], ES_HOSTS [empty: start the testkit's], JFR [empty; 1 records a
# flight recording per run], OUT [benchmarks/target/es-writes-<time>].
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILDS="${BUILDS:-new=$ROOT/dist/target/sextant}"
SECONDS_LOAD="${DURATION:-150}"
RATE="${RATE:-20000}"
SERVICES="${SERVICES:-200}"
ENDPOINTS="${ENDPOINTS:-5000}"
OUT="${OUT:-$ROOT/benchmarks/target/es-writes-$(date -u +%Y%m%dT%H%M%S)}"
CP="$ROOT/benchmarks/target/classes:$(cat "$ROOT/benchmarks/target/classpath.txt")"
GRPC_PORT=11871
HTTP_PORT=12871
mkdir -p "$OUT"
echo "results and logs in $OUT"

SERVER=""
ES_PID=""
cleanup() {
  if [[ -n "$SERVER" ]]; then kill "$SERVER" 2>/dev/null || true; fi
  if [[ -n "$ES_PID" ]]; then kill "$ES_PID" 2>/dev/null || true; fi
  wait 2>/dev/null || true
}
trap cleanup EXIT INT TERM
# shellcheck source=../scripts/lib/elasticsearch.sh
source "$ROOT/scripts/lib/elasticsearch.sh"
start_elasticsearch "$OUT"

# shellcheck source=../scripts/lib/cpu.sh
source "$ROOT/scripts/lib/cpu.sh"

# p50 / p95 / p99 of sextant_es_bulk_duration_seconds from a /metrics scrape, in ms.
bulk_percentiles() {
  grep '^sextant_es_bulk_duration_seconds_bucket' "$1" | sed 's/.*le="\([^"]*\)"} /\1 /' | awk '
    { le[NR] = $1; n[NR] = $2 }
    END {
      split("0.5 0.95 0.99", q, " ")
      for (i = 1; i <= 3; i++) {
        for (j = 1; j <= NR; j++) if (n[j] >= q[i] * n[NR]) break
        out = out (i > 1 ? " / " : "") (le[j] == "+Inf" ? "inf" : sprintf("%.0f", le[j] * 1000))
      }
      printf "%s ms of %d requests\n", out, n[NR]
    }'
}

run=0
for build in $BUILDS; do
  run=$((run + 1))
  label="${build%%=*}"
  dist="${build#*=}"
  name="$run-$label"
  jfr=""
  if [[ -n "${JFR:-}" ]]; then jfr="-XX:StartFlightRecording=filename=$OUT/$name.jfr,settings=profile"; fi
  SEXTANT_STORAGE=elasticsearch SEXTANT_ES_HOSTS="$ES_HOSTS" SEXTANT_STORAGE_ELASTICSEARCH_INDEX_PREFIX="writes$run" \
    SEXTANT_SERVER_HOST=127.0.0.1 SEXTANT_SERVER_GRPC_PORT=$GRPC_PORT SEXTANT_SERVER_HTTP_PORT=$HTTP_PORT \
    JAVA_OPTS="-Xms128m -Xmx512m -XX:MaxDirectMemorySize=64m -XX:+UseParallelGC $jfr" \
    "$dist/bin/sextant" >"$OUT/$name.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 1 240); do
    curl -fs -o /dev/null "http://127.0.0.1:$HTTP_PORT/readyz" && break
    kill -0 "$SERVER" 2>/dev/null || { echo "$name did not start ($OUT/$name.log)" >&2; exit 1; }
    sleep 0.5
  done
  java -Xmx512m -cp "$CP" io.sextant.benchmarks.LoadGenerator --topology=random --services="$SERVICES" \
    --endpoints="$ENDPOINTS" --batch=10 --seed=42 --target=127.0.0.1:$GRPC_PORT --http=127.0.0.1:$HTTP_PORT \
    --duration="$SECONDS_LOAD" --rate="$RATE" --verify=false --report=30 --server-pid="$SERVER" \
    >"$OUT/$name-generator.log" 2>&1 &
  generator=$!
  windows=""
  es_before=$(es_ticks)
  previous=$(ticks "$SERVER")
  for _ in $(seq 1 $((SECONDS_LOAD / 30))); do
    sleep 30
    now=$(ticks "$SERVER")
    windows="$windows $(awk -v d=$((now - previous)) 'BEGIN { printf "%.2f", d / 100 / 30 }')"
    previous=$now
  done
  es_cores=$(awk -v d=$(($(es_ticks) - es_before)) -v s=$((SECONDS_LOAD / 30 * 30)) 'BEGIN { printf "%.2f", d / 100 / s }')
  wait "$generator" || true
  curl -fs "http://127.0.0.1:$HTTP_PORT/metrics" >"$OUT/$name-metrics.txt"
  kill -TERM "$SERVER"
  wait "$SERVER" || true
  SERVER=""
  {
    echo "$name: server CPU per 30-s window (cores):$windows; Elasticsearch $es_cores cores"
    grep -h "^server CPU" "$OUT/$name-generator.log" | sed "s/^/$name: /"
    echo "$name: _bulk $(bulk_percentiles "$OUT/$name-metrics.txt")"
    grep -h '^sextant_es_documents_written_total' "$OUT/$name-metrics.txt" | sed "s/^/$name: /"
    grep -h "Sextant stopped" "$OUT/$name.log" | sed "s/^.* - /$name: /"
  } | tee -a "$OUT/summary.txt"
done
