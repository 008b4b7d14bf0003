#!/usr/bin/env bash
# Load test against the packaged server: starts dist/target/sextant/bin/sextant on 127.0.0.1,
# waits for /readyz, runs io.sextant.benchmarks.LoadGenerator with the arguments given here (plus
# --target, --http and --server-pid, which later arguments may override), then stops the server.
# Builds nothing: package dist and this module first.
#
# Environment:
#   JAVA_OPTS       server JVM options (default: the launcher's, -Xmx512m)
#   GEN_JAVA_OPTS   load generator JVM options (default -Xmx512m)
#   GRPC_PORT, HTTP_PORT  server ports (default 11800, 12800)
#   SERVER_CPUS, GEN_CPUS optional CPU lists for taskset, e.g. SERVER_CPUS=0 GEN_CPUS=1
#   SERVER_LOG      server output (default benchmarks/target/server.log)
#   DIST            the unpacked distribution to run (default dist/target/sextant), e.g. an older build
#
# Examples (LoadGenerator --help lists every option):
#   benchmarks/run-load.sh --duration=60 --streams=2 --batch=10 --topology=random --services=50
#   The same with a generated gRPC stub writing each message on its own (the client before session 9):
#   benchmarks/run-load.sh --duration=60 --batch=1 --client=stub
#   Envoy access logs (AccessLogService/StreamAccessLogs) as Istio proxies send them, one stream per
#   proxy, 10 entries per message as Envoy batches them; verified against sextant_als_entries_total:
#   benchmarks/run-load.sh --protocol=als --duration=60 --streams=4 --batch=10
#   SkyWalking Rover's eBPF access log (EBPFAccessLogService/collect), one stream per node as its
#   Rover: each connection's first message describes it, then one message per HTTP exchange with
#   --batch kernel logs (2: its write and read) and the exchange; every kernel and HTTP log is a
#   record, verified against sextant_receiver_records_accepted_total{receiver="ebpf_access_log"}:
#   benchmarks/run-load.sh --protocol=rover --duration=30 --batch=2
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIST="${DIST:-$ROOT/dist/target/sextant}"
CLASSES="$ROOT/benchmarks/target/classes"
CLASSPATH_FILE="$ROOT/benchmarks/target/classpath.txt"
GRPC_PORT="${GRPC_PORT:-11800}"
HTTP_PORT="${HTTP_PORT:-12800}"
SERVER_LOG="${SERVER_LOG:-$ROOT/benchmarks/target/server.log}"
export JAVA_OPTS="${JAVA_OPTS:--Xms128m -Xmx512m -XX:MaxDirectMemorySize=64m -XX:+UseParallelGC -XX:+ExitOnOutOfMemoryError}"

if [[ ! -x "$DIST/bin/sextant" ]]; then
  echo "no packaged server at $DIST; build the dist module first" >&2
  exit 2
fi
if [[ ! -f "$CLASSPATH_FILE" || ! -d "$CLASSES" ]]; then
  echo "load generator not built; run: mvn -B -q -o -pl benchmarks package" >&2
  exit 2
fi
if curl -fs -o /dev/null "http://127.0.0.1:$HTTP_PORT/healthz" 2>/dev/null; then
  echo "something already answers on 127.0.0.1:$HTTP_PORT; stop it or set HTTP_PORT/GRPC_PORT" >&2
  exit 2
fi

# Optional CPU pinning; taskset and bin/sextant both exec, so the pid we get is the server JVM's.
SERVER_CMD=("$DIST/bin/sextant")
GEN_PREFIX=()
if [[ -n "${SERVER_CPUS:-}" ]]; then SERVER_CMD=(taskset -c "$SERVER_CPUS" "${SERVER_CMD[@]}"); fi
if [[ -n "${GEN_CPUS:-}" ]]; then GEN_PREFIX=(taskset -c "$GEN_CPUS"); fi

mkdir -p "$(dirname "$SERVER_LOG")"
SEXTANT_SERVER_HOST=127.0.0.1 \
SEXTANT_SERVER_GRPC_PORT="$GRPC_PORT" \
SEXTANT_SERVER_HTTP_PORT="$HTTP_PORT" \
SEXTANT_CORE_COLLECTOR_ID=loadtest \
  "${SERVER_CMD[@]}" >"$SERVER_LOG" 2>&1 &
SERVER_PID=$!

stop_server() {
  if kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 100); do
      kill -0 "$SERVER_PID" 2>/dev/null || break
      sleep 0.2
    done
    if kill -0 "$SERVER_PID" 2>/dev/null; then
      echo "server did not stop within 20 s; killing it" >&2
      kill -KILL "$SERVER_PID" 2>/dev/null || true
    fi
  fi
  wait "$SERVER_PID" 2>/dev/null || true
}
trap stop_server EXIT INT TERM

ready=""
for _ in $(seq 1 120); do
  if curl -fs -o /dev/null "http://127.0.0.1:$HTTP_PORT/readyz" 2>/dev/null; then ready=yes; break; fi
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then break; fi
  sleep 0.5
done
if [[ -z "$ready" ]]; then
  echo "server did not become ready; last lines of $SERVER_LOG:" >&2
  tail -n 30 "$SERVER_LOG" >&2 || true
  exit 1
fi
echo "server pid $SERVER_PID ready (JAVA_OPTS=$JAVA_OPTS, log $SERVER_LOG)"

JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
set +e
${GEN_PREFIX[@]+"${GEN_PREFIX[@]}"} "$JAVA" ${GEN_JAVA_OPTS:--Xmx512m} -cp "$CLASSES:$(cat "$CLASSPATH_FILE")" \
  io.sextant.benchmarks.LoadGenerator \
  --target="127.0.0.1:$GRPC_PORT" --http="127.0.0.1:$HTTP_PORT" --server-pid="$SERVER_PID" "$@"
rc=$?
set -e
echo "stopping server"
stop_server
trap - EXIT INT TERM
exit "$rc"
