#!/usr/bin/env bash
# Start to ready, as a balancer sees it: each packaged server in BUILDS is started RUNS times in each
# mode of MODES and timed from its launch to the first 200 of /readyz (and of a GraphQL `{ version }`),
# polled every 100 ms, then stopped. Modes: memory (the embedded store), es (Elasticsearch up),
# es-frozen (Elasticsearch stopped with SIGSTOP before the start, resumed after). Prints one line a run.
#
# Builds nothing: ./mvnw -q -DskipTests package first. For a before/after, package the older commit
# in a worktree: BUILDS="old=/tmp/old/dist/target/sextant new=dist/target/sextant".
#
# Environment (defaults in brackets): BUILDS [new=dist/target/sextant], MODES [memory es es-frozen],
# RUNS [3], TIMEOUT [120] seconds, ES_HOSTS [empty: start the testkit's Elasticsearch when a mode needs
# it], OUT [benchmarks/target/start-to-ready-<time>].
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILDS="${BUILDS:-new=$ROOT/dist/target/sextant}"
MODES="${MODES:-memory es es-frozen}"
RUNS="${RUNS:-3}"
TIMEOUT="${TIMEOUT:-120}"
OUT="${OUT:-$ROOT/benchmarks/target/start-to-ready-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT"
HTTP_PORT=12877
GRPC_PORT=11877

ES_PID=""
if [[ "$MODES" == *es* ]]; then
  # shellcheck source=../scripts/lib/elasticsearch.sh
  source "$ROOT/scripts/lib/elasticsearch.sh"
  start_elasticsearch "$OUT"
fi
# The process listening on Elasticsearch's port (the server behind the launcher): SIGSTOP's target.
es_server_pid() {
  local hostport="${ES_HOSTS%%,*}"
  ss -ltnpH "sport = :${hostport##*:}" | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -1
}
cleanup() {
  if [[ -n "${FROZEN:-}" ]]; then kill -CONT "$FROZEN" 2>/dev/null || true; fi
  if [[ -n "$ES_PID" ]]; then kill "$ES_PID" 2>/dev/null; wait "$ES_PID" 2>/dev/null || true; fi
}
trap cleanup EXIT

now() { date +%s.%N; }

# One start: prints "<ready s> <graphql s>", or "timeout".
time_one() {
  local home=$1 mode=$2 log=$3
  local -a env=(SEXTANT_SERVER_HTTP_PORT=$HTTP_PORT SEXTANT_SERVER_GRPC_PORT=$GRPC_PORT
    SEXTANT_SERVER_DRAIN_READINESS_SECONDS=0)
  if [[ "$mode" != memory ]]; then
    env+=(SEXTANT_STORAGE=elasticsearch "SEXTANT_ES_HOSTS=$ES_HOSTS"
      "SEXTANT_STORAGE_ELASTICSEARCH_INDEX_PREFIX=ready-$(date +%s%N)")
  fi
  FROZEN=""
  if [[ "$mode" == es-frozen ]]; then
    FROZEN="$(es_server_pid)"
    kill -STOP "$FROZEN"
  fi
  local start graphql="" ready="" t
  start=$(now)
  env "${env[@]}" "$home/bin/sextant" >"$log" 2>&1 &
  local pid=$!
  while [[ -z "$ready" ]]; do
    t=$(now)
    if [[ -z "$graphql" ]] && [[ "$(curl -s -m 1 -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
        -d '{"query":"{ version }"}' "http://127.0.0.1:$HTTP_PORT/graphql")" == 200 ]]; then
      graphql=$(echo "$t - $start" | bc)
    fi
    if [[ "$(curl -s -m 1 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$HTTP_PORT/readyz")" == 200 ]]; then
      ready=$(echo "$t - $start" | bc)
    elif ! kill -0 "$pid" 2>/dev/null || (( $(echo "$t - $start > $TIMEOUT" | bc) )); then
      break
    fi
    sleep 0.1
  done
  if [[ -n "$FROZEN" ]]; then kill -CONT "$FROZEN"; FROZEN=""; fi
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  if [[ -n "$ready" ]]; then echo "$ready ${graphql:-?}"; else echo "not ready (exited or timed out; $log)"; fi
}

for run in $(seq 1 "$RUNS"); do
  for build in $BUILDS; do
    name="${build%%=*}"
    home="${build#*=}"
    for mode in $MODES; do
      result="$(time_one "$home" "$mode" "$OUT/$name-$mode-$run.log")"
      echo "$name $mode run $run: ready / GraphQL after launch (s): $result"
    done
  done
done
