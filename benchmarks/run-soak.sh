#!/usr/bin/env bash
# Soak: the packaged server (its defaults: memory store, 512 MB heap) under steady ingest, a
# steady query load and a background of malformed traffic for a long time; samples its RSS, heap
# and bounded self-metrics every 30 s into OUT/samples.tsv and checks at the end that every record
# sent was processed (LoadGenerator --verify). Builds nothing: package dist and this module first.
#
# Usage: benchmarks/run-soak.sh OUT SECONDS RATE [more LoadGenerator options]
#   benchmarks/run-soak.sh /tmp/soak 3600 400000 --topology=bookinfo
# Malformed traffic, once a second each: a gRPC request cut off inside its message, a message that
# is not protobuf, garbage on the gRPC port, and a GraphQL request that does not parse.
set -euo pipefail
OUT=$1; SECS=$2; RATE=$3; shift 3
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIST="${DIST:-$ROOT/dist/target/sextant}"
CP="$ROOT/benchmarks/target/classes:$(cat "$ROOT/benchmarks/target/classpath.txt")"
mkdir -p "$OUT"
if curl -sf -o /dev/null localhost:12800/readyz; then
  echo "something already answers on 127.0.0.1:12800; stop it first" >&2; exit 1
fi
SEXTANT_CORE_COLLECTOR_ID=soak "$DIST/bin/sextant" > "$OUT/server.log" 2>&1 &
for _ in $(seq 60); do curl -sf -o /dev/null localhost:12800/readyz && break; sleep 1; done
PID=$(pgrep -f "io.sextant.server.assembly.Main" | head -1)

metric() { awk -v m="$1" 'index($0, m) == 1 { s += $NF } END { printf "%.0f", s }' "$OUT/last-metrics.txt"; }
(
  printf 'time\trss_kb\theap_used_mb\topen_accumulators\tpending_bytes\tmetadata_bytes\tpartial_bytes\taccepted\trejected\tgc_pause_s\n'
  while kill -0 "$PID" 2>/dev/null; do
    curl -s localhost:12800/metrics > "$OUT/last-metrics.txt" || true
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date +%T)" "$(awk '/VmRSS/{print $2}' "/proc/$PID/status")" \
      "$(( $(metric 'jvm_memory_used_bytes{area="heap"') / 1048576 ))" "$(metric sextant_aggregator_open_accumulators)" \
      "$(metric sextant_flush_pending_bytes)" "$(metric sextant_storage_memory_metadata_bytes)" \
      "$(metric sextant_storage_memory_partial_bytes)" "$(metric sextant_records_accepted_total)" \
      "$(metric sextant_receiver_records_rejected_total)" "$(metric jvm_gc_pause_seconds_sum)"
    sleep 30
  done
) > "$OUT/samples.tsv" &

# Malformed traffic in the background for the whole run.
python3 - > "$OUT/bad.bin" <<'PY'
import struct, sys
sys.stdout.buffer.write(b'\x00' + struct.pack('>I', 100) + b'\x0a\x05hello')
PY
printf '\x00\x00\x00\x00\x07\xff\xff\xff\xff\xff\xff\xff' > "$OUT/notproto.bin"
(
  end=$(( $(date +%s) + SECS ))
  while [ "$(date +%s)" -lt "$end" ]; do
    for body in bad notproto; do
      curl -s -o /dev/null --http2-prior-knowledge -H 'content-type: application/grpc' -H 'te: trailers' \
        --data-binary @"$OUT/$body.bin" http://127.0.0.1:11800/skywalking.v3.ServiceMeshMetricService/collect || true
    done
    printf 'GET / HTTP/1.1\r\n\r\nnot http2 at all' | timeout 2 bash -c 'cat > /dev/tcp/127.0.0.1/11800' 2>/dev/null || true
    curl -s -o /dev/null -H 'content-type: application/json' -d '{"query":"{ listServices(layer: "}' \
      http://127.0.0.1:12800/graphql || true
    sleep 1
  done
) &
BAD=$!

# Queries start once the ingest has made services to query (QueryLoad stops when there are none).
( sleep 30; exec java -Xmx256m -cp "$CP" io.sextant.benchmarks.QueryLoad --duration=$((SECS - 60)) --warmup=30 \
  --minutes=30 --queries=topology,expression --report=300 ) > "$OUT/queries.log" 2>&1 &
QUERIES=$!
set +e
java -Xmx512m -cp "$CP" io.sextant.benchmarks.LoadGenerator --duration="$SECS" --rate="$RATE" --streams=2 --batch=10 \
  --verify=true --report=60 --server-pid="$PID" "$@" > "$OUT/ingest.log" 2>&1
VERIFIED=$?
set -e
wait "$QUERIES" || true
wait "$BAD" || true
curl -s localhost:12800/metrics > "$OUT/metrics.txt"
kill "$PID"; wait || true
# The malformed traffic is rejected on purpose: exact means every record sent was accepted.
exact=$(sed -nE 's/^processed == sent .*\(sent ([0-9,]+), receiver accepted ([0-9,]+), aggregator accepted ([0-9,]+)\)/\1 \2 \3/p' \
  "$OUT/ingest.log" | awk '{ print ($1 == $2 && $2 == $3) ? "yes" : "NO" }')
echo "every record sent accepted: ${exact:-NO} (LoadGenerator exit $VERIFIED counts the malformed rejections too)"
grep -E "^processed|rejected |^server RSS|^server heap" "$OUT/ingest.log" || true
tail -5 "$OUT/queries.log"
column -t "$OUT/samples.tsv" | sed -n '1,3p;$p'
