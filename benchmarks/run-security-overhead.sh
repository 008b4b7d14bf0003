#!/usr/bin/env bash
# What security costs, back to back: ingest with TLS and a receiver token on the gRPC port vs plain
# text, then GraphQL latency with a user's Basic credentials (bcrypt, as swctl sends them) vs
# anonymous, alternating rounds so that the machine's drift hits both alike. Uses the packaged server
# (dist/target/sextant) and the load generator; builds nothing.
#
#   benchmarks/run-security-overhead.sh [rounds] [seconds]      (default 2 rounds of 30 s)
#   PARTS=queries benchmarks/run-security-overhead.sh            (only one part: ingest or queries)
#
# Ingest: benchmarks/run-load.sh, bookinfo, batch 10, 2 streams, as fast as possible; the figure is
# the server's accepted records/s. Queries: one server with an hour of data (random topology, 200
# services), QueryLoad's expression mode over the last 30 minutes while 2,000 records/s arrive.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS="${1:-2}"
SECONDS_EACH="${2:-30}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
CP="$ROOT/benchmarks/target/classes:$(cat "$ROOT/benchmarks/target/classpath.txt")"

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=localhost \
  -addext subjectAltName=IP:127.0.0.1,DNS:localhost -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
TLS_ENV=(SEXTANT_TLS_GRPC=true SEXTANT_TLS_CERTIFICATE_FILE="$WORK/cert.pem" SEXTANT_TLS_KEY_FILE="$WORK/key.pem"
  SEXTANT_AUTH_RECEIVER_TOKENS=bench-token)

PARTS="${PARTS:-ingest,queries}"
[[ $PARTS == *ingest* ]] && echo "== ingest: accepted records/s (bookinfo, batch 10, ${SECONDS_EACH} s) =="
for round in $(seq "$ROUNDS"); do
  [[ $PARTS == *ingest* ]] || break
  for mode in plain secured; do
    if [[ $mode == plain ]]; then
      out="$("$ROOT/benchmarks/run-load.sh" --duration="$SECONDS_EACH" --batch=10)"
    else
      out="$(env "${TLS_ENV[@]}" "$ROOT/benchmarks/run-load.sh" --duration="$SECONDS_EACH" --batch=10 \
        --tls-ca="$WORK/cert.pem" --token=bench-token)"
    fi
    echo "round $round $mode: $(grep -E '^server accepted' <<<"$out" | head -1)"
    grep -E '^server CPU' <<<"$out" | sed "s/^/round $round $mode: /"
  done
done

[[ $PARTS == *queries* ]] || exit 0
echo "== queries: one server, Basic user vs anonymous (expression mode, last 30 minutes, live ingest) =="
HASH="$(printf %s bench-pw | "$ROOT/dist/target/sextant/bin/sextant" hash-password)"
printf 'users:\n  - {name: bench, role: viewer, password: "%s"}\n' "$HASH" >"$WORK/users.yaml"
SEXTANT_SERVER_HOST=127.0.0.1 SEXTANT_AUTH_USERS_FILE="$WORK/users.yaml" SEXTANT_AUTH_ANONYMOUS=viewer \
  SEXTANT_CORE_COLLECTOR_ID=overhead "$ROOT/dist/target/sextant/bin/sextant" >"$WORK/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 60); do curl -fs -o /dev/null http://127.0.0.1:12800/readyz && break; sleep 1; done
java -Xmx512m -cp "$CP" io.sextant.benchmarks.LoadGenerator --topology=random --services=200 --endpoints=5000 \
  --batch=10 --duration=60 --rate=20000 --backfill-minutes=60 >/dev/null
java -Xmx256m -cp "$CP" io.sextant.benchmarks.LoadGenerator --topology=random --services=200 --endpoints=5000 \
  --batch=10 --duration=$(( ROUNDS * 2 * (SECONDS_EACH + 10) + 30 )) --rate=2000 --verify=false >/dev/null &
LIVE=$!
BASIC="Basic $(printf %s bench:bench-pw | base64)"
for round in $(seq "$ROUNDS"); do
  for mode in anonymous basic; do
    auth=""; [[ $mode == basic ]] && auth="$BASIC"
    out="$(java -Xmx256m -cp "$CP" io.sextant.benchmarks.QueryLoad --queries=expression --minutes=30 \
      --duration="$SECONDS_EACH" --warmup=10 --authorization="$auth")"
    echo "round $round $mode:"
    sed -n '/^query /,/^$/p' <<<"$out"
  done
done
kill $LIVE 2>/dev/null || true
