#!/usr/bin/env bash
# GraphQL query latency against an already running server: runs io.sextant.benchmarks.QueryLoad
# with the arguments given here (QueryLoad --help lists every option). Starts and stops nothing,
# builds nothing: package this module first (mvn -B -q -o -pl benchmarks package -DskipTests).
# The server needs data in the queried window; an hour of it at once, from the load generator:
#   java -cp benchmarks/target/classes:$(cat benchmarks/target/classpath.txt) \
#     io.sextant.benchmarks.LoadGenerator --topology=random --services=200 --endpoints=5000 \
#     --batch=10 --duration=60 --rate=20000 --backfill-minutes=60
#
# With --freshness as the first argument it runs io.sextant.benchmarks.FreshnessProbe instead
# (records sent over gRPC -> visible with the exact count in GraphQL; --help lists its options),
# alone or beside other load.
#
# Environment:
#   GEN_JAVA_OPTS   client JVM options (default -Xmx256m)
#   HTTP_PORT       server HTTP port for the default --http (default 12800)
#   GRPC_PORT       server gRPC port for the freshness probe's default --target (default 11800)
#   SERVER_PID      if set, passed as --server-pid (RSS and CPU of the server from /proc)
#
# Examples:
#   benchmarks/run-query-load.sh --duration=20
#   benchmarks/run-query-load.sh --queries=topology --concurrency=2 --server-pid="$(pgrep -f sextant.server.assembly.Main)"
#   benchmarks/run-query-load.sh --http=127.0.0.1:22800 --queries=expression --minutes=30
#   benchmarks/run-query-load.sh --queries=expression --expression=service_cpm --minutes=30   # issue 13's figure
#   benchmarks/run-query-load.sh --queries=global-topology --minutes=30
#   benchmarks/run-query-load.sh --queries=dashboard --dashboard-size=4
#   benchmarks/run-query-load.sh --freshness --probes=30 --records=100
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLASSES="$ROOT/benchmarks/target/classes"
CLASSPATH_FILE="$ROOT/benchmarks/target/classpath.txt"
HTTP_PORT="${HTTP_PORT:-12800}"
GRPC_PORT="${GRPC_PORT:-11800}"

if [[ ! -f "$CLASSPATH_FILE" || ! -f "$CLASSES/io/sextant/benchmarks/QueryLoad.class" ]]; then
  echo "query load not built; run: mvn -B -q -o -pl benchmarks package -DskipTests" >&2
  exit 2
fi

JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
if [[ "${1:-}" == "--freshness" ]]; then
  shift
  exec "$JAVA" ${GEN_JAVA_OPTS:--Xmx256m} -cp "$CLASSES:$(cat "$CLASSPATH_FILE")" \
    io.sextant.benchmarks.FreshnessProbe --http="127.0.0.1:$HTTP_PORT" --target="127.0.0.1:$GRPC_PORT" "$@"
fi

DEFAULTS=(--http="127.0.0.1:$HTTP_PORT")
if [[ -n "${SERVER_PID:-}" ]]; then DEFAULTS+=(--server-pid="$SERVER_PID"); fi

# Later arguments win, so the caller's override the defaults above.
exec "$JAVA" ${GEN_JAVA_OPTS:--Xmx256m} -cp "$CLASSES:$(cat "$CLASSPATH_FILE")" \
  io.sextant.benchmarks.QueryLoad "${DEFAULTS[@]}" "$@"
