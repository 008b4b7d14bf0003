#!/usr/bin/env bash
# Dashboards while the mesh is writing (issue 24's benchmark): GraphQL reads of the last 30
# minutes on Elasticsearch, data written up to the read and live ingest running, with 1 or more
# collectors sharing the index. Per run:
#   1. Elasticsearch (the testkit's LocalElasticsearch, or ES_HOSTS) and COLLECTORS packaged
#      servers (dist/target/sextant) on one index prefix, ports 11800+i / 12800+i;
#   2. 30 minutes of history written through every collector (LoadGenerator --backfill-minutes=30,
#      the same topology to each, so every minute has a partial per collector, as in a cluster);
#   3. SETTLE_SECONDS (0) with nothing sent (a cluster that ran through those 30 minutes compacted
#      them as they passed; the backfill writes them at once, so compaction catches up here), then
#      live ingest of RATE records/s spread over the collectors for the rest of the run, LIVE_LEAD
#      seconds before anything is measured;
#   4. collector 1 restarted (SIGTERM, start) while its generator and a 4-expression dashboard read
#      back to back keep running, as sidecars and a browser do: both warm from the CLIENT_WARMUP
#      seconds before, both send nothing while it is not ready (a headless Service's balancing),
#      and the dashboard's first FIRST_SECONDS from the moment /readyz answers 200 are measured;
#   5. steady state, each query kind WARMUP s then QUERY_SECONDS s measured, one client thread:
#      one-service expression (service_cpm), the floor ({ version }, no data: what any request
#      waits for on this machine), a 4-expression dashboard of one service, global topology. The
#      window always ends at the server's current minute (still being written);
#   6. a dashboard refreshed every PAUSE_MILLIS for PACED_SECONDS, as a person watches one (after
#      PACED_WARMUP seconds back to back: the client's own HTTP code warm, as a browser's is).
# Results: OUT/summary.txt (the percentile lines of each phase and where the machine's cores went
# meanwhile: Elasticsearch, each collector, the live generators; then the metrics documents stored
# and each collector's compaction counters) and one log per process.
#
# Usage: benchmarks/run-live-reads.sh            (COLLECTORS=1)
#        COLLECTORS=3 benchmarks/run-live-reads.sh
# Environment: COLLECTORS (1), RATE (20000), SERVICES (200), ENDPOINTS (5000), SETTLE_SECONDS (0), FIRST_SECONDS (60),
#   LIVE_LEAD (120), CLIENT_WARMUP (60), RESTART_SECONDS (200), WARMUP (20), QUERY_SECONDS (30), PAUSE_MILLIS (2000), PACED_SECONDS (60), PACED_WARMUP (10), ES_HOSTS (empty: start one), OUT,
#   JAVA_OPTS of the servers.
# Builds nothing: ./mvnw -o -q -DskipTests install first (dist, benchmarks, testkit).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIST="$ROOT/dist/target/sextant"
CP="$ROOT/benchmarks/target/classes:$(cat "$ROOT/benchmarks/target/classpath.txt")"
COLLECTORS="${COLLECTORS:-1}"
RATE="${RATE:-20000}"
SERVICES="${SERVICES:-200}"
ENDPOINTS="${ENDPOINTS:-5000}"
SETTLE_SECONDS="${SETTLE_SECONDS:-0}"
FIRST_SECONDS="${FIRST_SECONDS:-60}"
CLIENT_WARMUP="${CLIENT_WARMUP:-60}"
# How long the restarted collector may take to be ready again: its drain (server.drainTimeoutSeconds,
# 30), its start, and its warm-ups (up to 10 + 60 s; on a loaded machine they use their budgets).
RESTART_SECONDS="${RESTART_SECONDS:-200}"
LIVE_LEAD="${LIVE_LEAD:-120}"
WARMUP="${WARMUP:-20}"
QUERY_SECONDS="${QUERY_SECONDS:-30}"
PAUSE_MILLIS="${PAUSE_MILLIS:-2000}"
PACED_SECONDS="${PACED_SECONDS:-60}"
PACED_WARMUP="${PACED_WARMUP:-10}"
OUT="${OUT:-$ROOT/benchmarks/target/live-reads-$COLLECTORS-$(date -u +%Y%m%dT%H%M%S)}"
PREFIX="live$COLLECTORS$(date +%s)"
export JAVA_OPTS="${JAVA_OPTS:--Xms256m -Xmx768m -XX:MaxDirectMemorySize=64m -XX:+UseParallelGC -XX:+ExitOnOutOfMemoryError}"
TOPOLOGY=(--topology=random --services="$SERVICES" --endpoints="$ENDPOINTS" --batch=10 --seed=42)

if [[ ! -x "$DIST/bin/sextant" || ! -f "$ROOT/benchmarks/target/classes/io/sextant/benchmarks/QueryLoad.class" ]]; then
  echo "not built; run: ./mvnw -o -q -DskipTests install" >&2
  exit 2
fi
for i in $(seq "$COLLECTORS"); do
  if curl -fs -o /dev/null "http://127.0.0.1:$((12800 + i))/healthz" 2>/dev/null; then
    echo "something already answers on 127.0.0.1:$((12800 + i))" >&2
    exit 2
  fi
done
mkdir -p "$OUT"
echo "results and logs in $OUT"

declare -A SERVER_PID=()
LIVE_PIDS=()
ES_PID=""
# Collectors stop before Elasticsearch: they write what they hold on SIGTERM, and a storage that
# is gone by then would turn the benchmark's own ending into lost rows in their logs.
cleanup() {
  for p in "${LIVE_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${SERVER_PID[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${SERVER_PID[@]}"; do wait "$p" 2>/dev/null || true; done
  if [[ -n "$ES_PID" ]]; then kill "$ES_PID" 2>/dev/null || true; fi
  wait 2>/dev/null || true
}
trap cleanup EXIT INT TERM

# shellcheck source=../scripts/lib/elasticsearch.sh
source "$ROOT/scripts/lib/elasticsearch.sh"
start_elasticsearch "$OUT"
# shellcheck source=../scripts/lib/cpu.sh
source "$ROOT/scripts/lib/cpu.sh"

# Where the machine's cores went in a phase: cpu_mark before it, cpu_report NAME after it. Every
# process of the run is on this machine, so a slow phase shows whose CPU it waited behind.
cpu_mark() {
  CPU_AT=$EPOCHREALTIME
  read -r CPU_BUSY CPU_STEAL < <(machine_ticks)
  CPU_ES=$(es_ticks)
  CPU_PIDS=()
  CPU_SERVERS=()
  for i in $(seq "$COLLECTORS"); do
    CPU_PIDS+=("${SERVER_PID[$i]}")
    CPU_SERVERS+=("$(ticks "${SERVER_PID[$i]}")")
  done
  CPU_LIVE=$(for p in "${LIVE_PIDS[@]}"; do ticks "$p"; done | awk '{s += $1} END {print s + 0}')
}
cpu_report() {
  local seconds busy steal line
  seconds=$(python3 -c "print($EPOCHREALTIME - $CPU_AT)")
  read -r busy steal < <(machine_ticks)
  cores() { awk -v d="$1" -v s="$seconds" 'BEGIN { printf "%.2f", d / 100 / s }'; }
  line="cpu of $1 (cores): machine $(cores $((busy - CPU_BUSY))) busy, $(cores $((steal - CPU_STEAL))) stolen;"
  line="$line elasticsearch $(cores $(($(es_ticks) - CPU_ES)))"
  for i in $(seq "$COLLECTORS"); do
    if [[ "${SERVER_PID[$i]}" == "${CPU_PIDS[$((i - 1))]}" ]]; then
      line="$line, collector $i $(cores $(($(ticks "${SERVER_PID[$i]}") - CPU_SERVERS[i - 1])))"
    else
      line="$line, collector $i restarted"
    fi
  done
  local live
  live=$(for p in "${LIVE_PIDS[@]}"; do ticks "$p"; done | awk '{s += $1} END {print s + 0}')
  echo "$line, live generators $(cores $((live - CPU_LIVE))); load average $(cut -d' ' -f1 /proc/loadavg)" \
    | tee -a "$OUT/summary.txt"
}

# Starts collector $1 and waits until it is ready.
start_collector() {
  local i=$1
  SEXTANT_SERVER_HOST=127.0.0.1 SEXTANT_SERVER_GRPC_PORT=$((11800 + i)) SEXTANT_SERVER_HTTP_PORT=$((12800 + i)) \
  SEXTANT_STORAGE=elasticsearch SEXTANT_ES_HOSTS="$ES_HOSTS" SEXTANT_STORAGE_ELASTICSEARCH_INDEX_PREFIX="$PREFIX" \
  SEXTANT_CORE_COLLECTOR_ID="c$i" SEXTANT_SERVER_DRAIN_READINESS_SECONDS=0 \
    "$DIST/bin/sextant" >>"$OUT/collector-$i.log" 2>&1 &
  SERVER_PID[$i]=$!
  echo "${SERVER_PID[$i]}" > "$OUT/collector-$i.pid"
  local started=$EPOCHREALTIME
  for _ in $(seq 1200); do
    if curl -fs -o /dev/null "http://127.0.0.1:$((12800 + i))/readyz" 2>/dev/null; then
      echo "collector $i ready $(python3 -c "print(f'{$EPOCHREALTIME - $started:.1f}')") s after its start" \
        | tee -a "$OUT/summary.txt"
      return 0
    fi
    kill -0 "${SERVER_PID[$i]}" 2>/dev/null || break
    sleep 0.1
  done
  echo "collector $i did not become ready ($OUT/collector-$i.log)" >&2
  exit 1
}

# Live ingest to collector $1 for $2 seconds at $3 records/s.
live() {
  java -Xmx256m -cp "$CP" io.sextant.benchmarks.LoadGenerator "${TOPOLOGY[@]}" --target="127.0.0.1:$((11800 + $1))" \
    --http="127.0.0.1:$((12800 + $1))" --duration="$2" --rate="$3" --verify=false --report=60 --connect-when-ready \
    >>"$OUT/live-$1.log" 2>&1 &
  LIVE_PIDS+=($!)
}

# Queries collector 1: $1 = name of the phase, the rest QueryLoad options.
query_load() {
  local name=$1
  shift
  java -Xmx256m -cp "$CP" io.sextant.benchmarks.QueryLoad --http=127.0.0.1:12801 --minutes=30 \
    --server-pid="${SERVER_PID[1]}" "$@" >"$OUT/query-$name.log" 2>&1
  { echo "== $name ($COLLECTORS collectors, $RATE rec/s live): $*"; sed -n '/^query /,/^$/p' "$OUT/query-$name.log"
  } | tee -a "$OUT/summary.txt"
}

# The same, with where the cores went meanwhile.
query() {
  cpu_mark
  query_load "$@"
  cpu_report "$1"
}

for i in $(seq "$COLLECTORS"); do start_collector "$i"; done
echo "$COLLECTORS collectors on $ES_HOSTS, prefix $PREFIX; writing 30 minutes of history"
BACKFILL=()
for i in $(seq "$COLLECTORS"); do
  java -Xmx512m -cp "$CP" io.sextant.benchmarks.LoadGenerator "${TOPOLOGY[@]}" --target="127.0.0.1:$((11800 + i))" \
    --http="127.0.0.1:$((12800 + i))" --duration=60 --rate=$((RATE / COLLECTORS)) --backfill-minutes=30 \
    --verify=false >"$OUT/backfill-$i.log" 2>&1 &
  BACKFILL+=($!)
done
for p in "${BACKFILL[@]}"; do wait "$p"; done
grep -h "^server accepted" "$OUT"/backfill-*.log | sed 's/^/backfill: /' | tee -a "$OUT/summary.txt"
sleep "$SETTLE_SECONDS"

RUN_SECONDS=$((LIVE_LEAD + CLIENT_WARMUP + RESTART_SECONDS + FIRST_SECONDS + 4 * (WARMUP + QUERY_SECONDS) + PACED_SECONDS + 120))
for i in $(seq "$COLLECTORS"); do live "$i" "$RUN_SECONDS" $((RATE / COLLECTORS)); done
# The generators stand for sidecars, which are long warm when a collector restarts: their JVMs
# compile, and the collectors absorb the new load, before the dashboard client starts.
sleep "$LIVE_LEAD"
SERVICE="$(curl -fs -H 'Content-Type: application/json' "http://127.0.0.1:12801/graphql" \
  -d '{"query":"{ listServices(layer: \"MESH\") { name } }"}' | python3 -c \
  'import json,sys; n=sorted(s["name"] for s in json.load(sys.stdin)["data"]["listServices"]); print(([x for x in n if x.startswith("svc-")] or n)[0])')"
echo "reads of service $SERVICE on collector 1, restarted after $CLIENT_WARMUP s"
query_load first-minute-dashboard --queries=dashboard --dashboard-size=4 --service="$SERVICE" --restart \
  --warmup=$((CLIENT_WARMUP + RESTART_SECONDS)) --duration="$FIRST_SECONDS" --server-pid-file="$OUT/collector-1.pid" &
FIRST=$!
sleep "$CLIENT_WARMUP"
kill -TERM "${SERVER_PID[1]}"
wait "${SERVER_PID[1]}" 2>/dev/null || true
start_collector 1
cpu_mark
wait "$FIRST"
cpu_report first-minute-dashboard
query expression --queries=expression --expression=service_cpm --service="$SERVICE" --warmup="$WARMUP" \
  --duration="$QUERY_SECONDS"
# The cheapest request ({ version }): what any request waits for on this machine at this load.
query floor --queries=version --warmup="$WARMUP" --duration="$QUERY_SECONDS"
query dashboard --queries=dashboard --dashboard-size=4 --service="$SERVICE" --warmup="$WARMUP" \
  --duration="$QUERY_SECONDS"
query topology --queries=global-topology --warmup="$WARMUP" --duration="$QUERY_SECONDS"
# A person's dashboard: refreshed every PAUSE_MILLIS, not read back to back.
query paced-dashboard --queries=dashboard --dashboard-size=4 --service="$SERVICE" --warmup="$PACED_WARMUP" \
  --duration="$PACED_SECONDS" --pause-millis="$PAUSE_MILLIS"
curl -fs "http://127.0.0.1:12801/metrics" | grep -E "^sextant_es_(metric|topology)_reads_total|^sextant_es_read_follows_total" \
  | sed "s/^/collector 1 reads: /" | tee -a "$OUT/summary.txt"
for i in $(seq "$COLLECTORS"); do
  grep -E "^sextant_records_accepted_total\{kind=\"call\"\}|^sextant_compaction_rows_(made|deleted)_total" \
    <(curl -fs "http://127.0.0.1:$((12800 + i))/metrics") | sed "s/^/collector $i: /" | tee -a "$OUT/summary.txt"
done
curl -fs "http://$ES_HOSTS/_cat/indices/$PREFIX-metrics-minute-*?h=index,docs.count,store.size&bytes=kb" \
  | sed 's/^/minute metrics (index, documents, kB): /' | tee -a "$OUT/summary.txt"
