#!/usr/bin/env bash
# Query cost with many writers: the SAME data volume written into Elasticsearch by 1, 3 or 10
# writers, then the same GraphQL queries over it.
#
# For each N in $WRITERS, under its own index prefix (sextant-w<N>), the packaged server is started
# N times one after another; each run is a new writer (writer id = collector id + start stamp, so a
# restarted collector writes new partials, as a rolling upgrade or a scale-out does) and replays,
# with LoadGenerator --backfill-minutes, the SAME $BACKFILL minutes ending at one fixed instant
# (--backfill-end), for $SEND_SECONDS seconds at $RATE/N records/s: N writers, 1/N of the records
# each, every minute written by every writer. (Each writer needs the whole $SEND_SECONDS: the
# generator draws a fresh pool of records once a second, so a shorter replay would skip minutes.) Each writer is stopped with SIGTERM and
# must log that everything it accepted was written. Then a reader (a collector that receives
# nothing) is started on the prefix and QueryLoad measures, over the last $MINUTES minutes of the
# replayed window (closed minutes, --end: the same data on every run):
#   topology         getServicesTopology over every service
#   global-topology  getGlobalTopology of the MESH layer
#   expression       execExpression(service_cpm), one service per request (cycling), step MINUTE
#   dashboard4/8     one request with 4 / 8 execExpression fields (a service dashboard)
# and Elasticsearch is asked how many service_cpm minute documents the window holds (the documents
# an expression reads, fetched per service and minute).
#
# Builds nothing: package first (./mvnw -o -q -DskipTests package -pl dist,benchmarks,oap-server/sextant-testkit -am).
#
# Environment (defaults in brackets):
#   ES_HOSTS       host:port of an Elasticsearch to use; empty: start the testkit's LocalElasticsearch
#                  (512 MB heap) and stop it at the end [empty]
#   WRITERS        writer counts to measure ["1 3 10"]
#   SEND_SECONDS   sending time of each writer (at least 2 s per replayed minute) [60]
#   RATE           records/s of the whole data set, split evenly over the writers [6000]
#   SERVICES, ENDPOINTS, BATCH, BACKFILL  the data set [200, 100, 10, 30]
#   MINUTES        queried window, the last minutes of the replay [30]
#   QUERY_SECONDS, WARMUP  measured and warm-up seconds per query kind [20, 10]
#   QUERIES        kinds to measure ["topology global-topology expression dashboard4 dashboard8"]
#   GRPC_PORT, HTTP_PORT  server ports [23800, 24800]
#   JAVA_OPTS      server JVM options [the launcher's, with -Xmx768m for PENDING_MB]
#   PENDING_MB     the writers' core.maxPendingMegabytes: a replay writes minutes faster than real
#                  time, and a writer that drops rows (checked) would change the data set [256]
#   OUT            directory for logs and results [benchmarks/target/writers-<stamp>]
#   KEEP_DATA=1    leave the sextant-w<N> indices in place (default: deleted at the start of each N)
#
# Examples: benchmarks/run-writers.sh         (the data sets of docs/performance-history.md "Many writers")
#           WRITERS="1 3" QUERY_SECONDS=10 benchmarks/run-writers.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIST="$ROOT/dist/target/sextant"
CLASSES="$ROOT/benchmarks/target/classes"
CLASSPATH_FILE="$ROOT/benchmarks/target/classpath.txt"
WRITERS="${WRITERS:-1 3 10}"
SEND_SECONDS="${SEND_SECONDS:-60}"
RATE="${RATE:-6000}"
SERVICES="${SERVICES:-200}"
ENDPOINTS="${ENDPOINTS:-100}"
BATCH="${BATCH:-10}"
BACKFILL="${BACKFILL:-30}"
MINUTES="${MINUTES:-30}"
QUERY_SECONDS="${QUERY_SECONDS:-20}"
WARMUP="${WARMUP:-10}"
QUERIES="${QUERIES:-topology global-topology expression dashboard4 dashboard8}"
GRPC_PORT="${GRPC_PORT:-23800}"
HTTP_PORT="${HTTP_PORT:-24800}"
OUT="${OUT:-$ROOT/benchmarks/target/writers-$(date -u +%Y%m%dT%H%M%S)}"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
export JAVA_OPTS="${JAVA_OPTS:--Xms128m -Xmx768m -XX:MaxDirectMemorySize=64m -XX:+UseParallelGC -XX:+ExitOnOutOfMemoryError}"

if [[ ! -x "$DIST/bin/sextant" || ! -f "$CLASSPATH_FILE" || ! -f "$CLASSES/io/sextant/benchmarks/QueryLoad.class" ]]; then
  echo "not built; run: ./mvnw -o -q -DskipTests package -pl dist,benchmarks,oap-server/sextant-testkit -am" >&2
  exit 2
fi
if curl -fs -o /dev/null "http://127.0.0.1:$HTTP_PORT/healthz" 2>/dev/null; then
  echo "something already answers on 127.0.0.1:$HTTP_PORT; set HTTP_PORT/GRPC_PORT" >&2
  exit 2
fi
mkdir -p "$OUT"
echo "results and logs in $OUT"

ES_PID=""
SERVER_PID=""
cleanup() {
  stop_server
  if [[ -n "$ES_PID" ]]; then
    kill "$ES_PID" 2>/dev/null || true
    wait "$ES_PID" 2>/dev/null || true
  fi
}
trap cleanup EXIT INT TERM

# shellcheck source=../scripts/lib/elasticsearch.sh
source "$ROOT/scripts/lib/elasticsearch.sh"
start_elasticsearch "$OUT"
ES="http://${ES_HOSTS%%,*}"
echo "Elasticsearch at $ES"

# Starts the packaged server on the prefix; $1 = prefix, $2 = collector id, $3 = log file.
start_server() {
  SEXTANT_SERVER_HOST=127.0.0.1 SEXTANT_SERVER_GRPC_PORT="$GRPC_PORT" SEXTANT_SERVER_HTTP_PORT="$HTTP_PORT" \
  SEXTANT_STORAGE=elasticsearch SEXTANT_ES_HOSTS="$ES_HOSTS" SEXTANT_STORAGE_ELASTICSEARCH_INDEX_PREFIX="$1" \
  SEXTANT_CORE_COLLECTOR_ID="$2" SEXTANT_CORE_MAX_PENDING_MEGABYTES="${PENDING_MB:-256}" SEXTANT_SERVER_DRAIN_READINESS_SECONDS=0 SEXTANT_SERVER_DRAIN_TIMEOUT_SECONDS=300 \
    "$DIST/bin/sextant" >"$3" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 240); do
    if curl -fs -o /dev/null "http://127.0.0.1:$HTTP_PORT/readyz" 2>/dev/null; then return 0; fi
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.5
  done
  echo "server did not become ready; last lines of $3:" >&2
  tail -n 30 "$3" >&2 || true
  exit 1
}

# SIGTERM, then waits for the drain (up to drainTimeoutSeconds plus a margin) before killing.
stop_server() {
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 1600); do
      kill -0 "$SERVER_PID" 2>/dev/null || break
      sleep 0.2
    done
    if kill -0 "$SERVER_PID" 2>/dev/null; then
      echo "server $SERVER_PID did not stop within 320 s; killing it" >&2
      kill -KILL "$SERVER_PID" 2>/dev/null || true
    fi
  fi
  [[ -n "$SERVER_PID" ]] && { wait "$SERVER_PID" 2>/dev/null || true; }
  SERVER_PID=""
}

# One fixed end for every data set: a few seconds before the end of the last closed minute.
END_MS=$(( ($(date +%s) / 60) * 60000 - 5000 ))
echo "replayed window ends at $END_MS ($(date -u -d @$((END_MS / 1000)) +%FT%TZ)); queried: its last $MINUTES minutes"
# The minute buckets of the queried window in the server's zone (bin/sextant runs in this machine's).
FIRST_BUCKET=$(date -d @$((END_MS / 1000 - (MINUTES - 1) * 60)) +%Y%m%d%H%M)
LAST_BUCKET=$(date -d @$((END_MS / 1000)) +%Y%m%d%H%M)

SUMMARY="$OUT/summary.txt"
: >"$SUMMARY"
for N in $WRITERS; do
  PREFIX="sextant-w$N"
  if [[ -z "${KEEP_DATA:-}" ]]; then
    curl -fs -X DELETE "$ES/$PREFIX-*" -o /dev/null || true
  fi
  PER_RATE=$(( RATE / N ))
  for i in $(seq 1 "$N"); do
    LOG="$OUT/w$N-writer$i.log"
    start_server "$PREFIX" "writer-$i" "$LOG"
    echo "== $N writers: writer $i of $N (pid $SERVER_PID) sends $SEND_SECONDS s at $PER_RATE records/s"
    "$JAVA" ${GEN_JAVA_OPTS:--Xmx512m} -cp "$CLASSES:$(cat "$CLASSPATH_FILE")" io.sextant.benchmarks.LoadGenerator \
      --target="127.0.0.1:$GRPC_PORT" --http="127.0.0.1:$HTTP_PORT" --server-pid="$SERVER_PID" \
      --topology=random --services="$SERVICES" --endpoints="$ENDPOINTS" --batch="$BATCH" --duration="$SEND_SECONDS" \
      --rate="$PER_RATE" --backfill-minutes="$BACKFILL" --backfill-end="$END_MS" --report=30 \
      >"$OUT/w$N-gen$i.log" 2>&1 || { echo "load generator failed, see $OUT/w$N-gen$i.log" >&2; tail -5 "$OUT/w$N-gen$i.log" >&2; exit 1; }
    grep -E "^sent  " "$OUT/w$N-gen$i.log" | head -1 || true
    grep -q "processed == sent   YES" "$OUT/w$N-gen$i.log" || { echo "processed != sent, see $OUT/w$N-gen$i.log" >&2; exit 1; }
    # Let the writer catch up with Elasticsearch before it is stopped, so the drain is short.
    for _ in $(seq 1 600); do
      PENDING=$(curl -fs "http://127.0.0.1:$HTTP_PORT/metrics" | awk '/^sextant_flush_pending_partials/ {s += $2} END {print s + 0}')
      [[ "$PENDING" == "0" ]] && break
      sleep 1
    done
    DROPPED=$(curl -fs "http://127.0.0.1:$HTTP_PORT/metrics" | awk '/^sextant_flush_partials_dropped_total/ {s += $2} END {print s + 0}')
    stop_server
    if ! grep -q "everything accepted was written" "$LOG"; then
      echo "writer $i did not write everything it accepted; see $LOG" >&2
      exit 1
    fi
    echo "   writer $i stopped, everything accepted written; partial rows dropped for the pending bound: $DROPPED"
    if [[ "$DROPPED" != "0" ]]; then
      echo "   (rows were dropped: the data set is not the same volume; raise SEND_SECONDS)" >&2
      exit 1
    fi
  done
  curl -fs -X POST "$ES/$PREFIX-*/_refresh" -o /dev/null || true
  DOCS=$(curl -fs -H 'Content-Type: application/json' "$ES/$PREFIX-metrics-minute-*/_count" -d "{\"query\":{\"bool\":{\"filter\":[
    {\"term\":{\"metrics\":\"service_cpm\"}},{\"range\":{\"bucket\":{\"gte\":$FIRST_BUCKET,\"lte\":$LAST_BUCKET}}}]}}}" \
    | sed -E 's/.*"count":([0-9]+).*/\1/')
  ALL_DOCS=$(curl -fs "$ES/$PREFIX-*/_count" | sed -E 's/.*"count":([0-9]+).*/\1/')
  {
    echo "### $N writer(s): $SEND_SECONDS s each at $PER_RATE records/s, $BACKFILL minutes replayed ending $END_MS"
    echo "service_cpm minute documents in the $MINUTES-minute window: $DOCS (all documents under $PREFIX: $ALL_DOCS)"
  } | tee -a "$SUMMARY"

  start_server "$PREFIX" "reader" "$OUT/w$N-reader.log"
  for q in $QUERIES; do
    case "$q" in
      dashboard4) ARGS=(--queries=dashboard --dashboard-size=4) ;;
      dashboard8) ARGS=(--queries=dashboard --dashboard-size=8) ;;
      expression) ARGS=(--queries=expression --expression=service_cpm) ;;
      *) ARGS=(--queries="$q") ;;
    esac
    echo "-- $N writers: $q"
    HTTP_PORT="$HTTP_PORT" SERVER_PID="$SERVER_PID" "$ROOT/benchmarks/run-query-load.sh" "${ARGS[@]}" \
      --minutes="$MINUTES" --end="$END_MS" --duration="$QUERY_SECONDS" --warmup="$WARMUP" --report=60 \
      >"$OUT/w$N-$q.log" 2>&1 || { echo "query load failed, see $OUT/w$N-$q.log" >&2; tail -5 "$OUT/w$N-$q.log" >&2; exit 1; }
    {
      echo "$q:"
      # The header and the kind's row (requests, errors, req/s, p50, p95, p99, max, bytes), then CPU.
      grep -E "^(query |topology |global-topology |service_cpm |dashboard-)" "$OUT/w$N-$q.log" | grep -v "answers"
      grep -E "^(client|server) pid" "$OUT/w$N-$q.log"
    } | tee -a "$SUMMARY"
  done
  stop_server
done
echo "summary: $SUMMARY"
