#!/usr/bin/env bash
# A flood of new names against the packaged server, beside a well-behaved sender: starts
# dist/target/sextant/bin/sextant (its own defaults: memory store, 512 MB heap), sends bookinfo at
# 500 rec/s for the whole run, floods with a second LoadGenerator for SECONDS at full speed, waits
# 100 s for the flood's minutes to close and be written, then records whether the server lived,
# /readyz, /metrics, its RSS every 5 s and both generators' reports in OUT. Builds nothing.
#
# Usage: benchmarks/run-flood.sh OUT SECONDS [LoadGenerator options for the flood...]
#   1 M new services:        benchmarks/run-flood.sh /tmp/flood/services 120 --topology=random \
#                              --services=1000000 --endpoints=1000000 --instances-per-service=1
#   1 M endpoints:           benchmarks/run-flood.sh /tmp/flood/endpoints 90 --topology=random --services=2 \
#                              --endpoints=1000000
#   1 M instances:           benchmarks/run-flood.sh /tmp/flood/instances 90 --topology=random --services=2 \
#                              --endpoints=10 --instances-per-service=500000
#   a steady stream instead: add --rate=2000 (records per second) and a longer SECONDS
# Reading the result: OUT/alive, OUT/readyz, "stream 0: OK" in OUT/steady.log (the well-behaved
# sender lost nothing), sextant_records_rejected_total and sextant_storage_memory_* in OUT/metrics.
set -euo pipefail
OUT=$1; SECONDS_=$2; shift 2
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIST="${DIST:-$ROOT/dist/target/sextant}"
CP="$ROOT/benchmarks/target/classes:$(cat "$ROOT/benchmarks/target/classpath.txt")"
mkdir -p "$OUT"
if curl -sf -o /dev/null localhost:12800/readyz; then
  echo "something already answers on 127.0.0.1:12800; stop it first" >&2; exit 1
fi
SEXTANT_CORE_COLLECTOR_ID=flood "$DIST/bin/sextant" > "$OUT/server.log" 2>&1 &
for _ in $(seq 60); do curl -sf -o /dev/null localhost:12800/readyz && break; sleep 1; done
PID=$(pgrep -f "io.sextant.server.assembly.Main" | head -1)
( while kill -0 "$PID" 2>/dev/null; do echo "$(date +%T) $(awk '/VmRSS/{print $2}' "/proc/$PID/status") kB"; sleep 5
  done ) > "$OUT/rss.txt" &
java -Xmx256m -cp "$CP" io.sextant.benchmarks.LoadGenerator --topology=bookinfo --rate=500 \
  --duration=$((SECONDS_ + 100)) --streams=2 --batch=10 --verify=false --report=30 --seed=7 > "$OUT/steady.log" 2>&1 &
STEADY=$!
sleep 5
# The flood's topology is built in the generator's memory: a million names need a larger heap.
java -Xmx2g -cp "$CP" io.sextant.benchmarks.LoadGenerator --duration="$SECONDS_" --verify=false --report=15 \
  --streams=2 --batch=10 "$@" > "$OUT/flood.log" 2>&1
wait "$STEADY"
curl -s localhost:12800/metrics > "$OUT/metrics.txt"
curl -s -o /dev/null -w "readyz %{http_code} in %{time_total}s\n" localhost:12800/readyz > "$OUT/readyz.txt" || true
if kill -0 "$PID" 2>/dev/null; then echo alive > "$OUT/alive"; kill "$PID"; else echo DEAD > "$OUT/alive"; fi
wait || true
echo "$(cat "$OUT/alive"); $(cat "$OUT/readyz.txt"); RSS peak $(sort -k2 -n "$OUT/rss.txt" | tail -1 | cut -d' ' -f2-)"
grep -E "^streams|stream [0-9]+:|^sent" "$OUT/steady.log"
grep -E '^sextant_records_rejected_total|^sextant_storage_memory_(metadata_bytes|evicted)' "$OUT/metrics.txt"
