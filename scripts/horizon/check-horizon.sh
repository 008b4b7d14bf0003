#!/usr/bin/env bash
# Checks Horizon UI v0.7.0 (SkyWalking's next UI) against a Sextant distribution, page by page.
#
# Usage: scripts/horizon/check-horizon.sh HORIZON_SRC SEXTANT_TARBALL [OUT_DIR]
#   HORIZON_SRC      a checkout or git mirror of apache/skywalking-horizon-ui (tag v0.7.0 is used;
#                    a plain directory without .git is used as it is)
#   SEXTANT_TARBALL  dist/target/sextant-*.tar.gz
#   OUT_DIR          screenshots, logs and the report (default: a new temp dir)
# Needs: Node 20.19+ with npm (pnpm 10.33.2 is installed globally when missing), Java 17+, Chromium
# (CHROMIUM, default /usr/bin/chromium), Python 3 with Playwright (it uses that Chromium), curl, and
# the benchmarks module built (benchmarks/target/classes + classpath.txt) for the load generator;
# BENCH_TARGET points at another checkout's benchmarks/target (e.g. a worktree with no build).
# Ports: 11800, 12800 (Sextant), 8081 (Horizon) must be free.
# Takes about 6 minutes on 2 cores: pnpm install 10-25 s, pnpm package 95-130 s (vue-tsc, vite),
# 2 minutes of traffic before the pages are opened, 2-3 minutes of page visits.
# Every process it starts is stopped on exit, and its temp build (~700 MB) is removed (KEEP_WORK=1
# keeps it). It never edits the Horizon source it is given: the build happens in a temp copy, where
# engines.node is relaxed to >=20.19 (nothing needs Node 22).
set -euo pipefail
SRC=${1:?horizon source}; TARBALL=${2:?sextant tarball}
OUT=${3:-$(mktemp -d /tmp/horizon-check.XXXXXX)}
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
WORK=$(mktemp -d /tmp/horizon-work.XXXXXX)
mkdir -p "$OUT"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [[ -n "${KEEP_WORK:-}" ]] || rm -rf "$WORK"
}
trap cleanup EXIT
log() { echo "[$(date +%T)] $*"; }

# 1. Build Horizon in a temp copy.
mkdir -p "$WORK/h"
if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
  git -C "$SRC" archive v0.7.0 | tar -x -C "$WORK/h"
else
  cp -a "$SRC"/. "$WORK/h"/
fi
H="$WORK/h"
command -v pnpm >/dev/null || npm i -g pnpm@10.33.2
t0=$(date +%s)
(cd "$H" && npm pkg set engines.node='>=20.19' && pnpm install --frozen-lockfile >"$OUT/pnpm-install.log" 2>&1)
t1=$(date +%s)
(cd "$H" && pnpm package >"$OUT/pnpm-package.log" 2>&1)
t2=$(date +%s)
log "horizon built: install $((t1 - t0)) s, package $((t2 - t1)) s"

# 2. Sextant from the tarball, with mesh telemetry and Envoy's access logs (MESH), Envoy metrics
# (MESH_DP) and Rover (K8S_SERVICE) traffic, all bookinfo.
tar -xzf "$TARBALL" -C "$WORK"
S=$(dirname "$(dirname "$(ls "$WORK"/*/bin/sextant)")")
sed -i 's/^  host: 0.0.0.0/  host: 127.0.0.1/' "$S/config/application.yml"
# A rule that fires on any traffic, so the Alarms page and the overview's alarm widget have one to show.
sed -i '/^rules:/a\
  horizon_check_rule:\
    expression: sum(service_cpm > 1) >= 1\
    period: 2\
    message: Service {name} has traffic (the Horizon check'"'"'s own rule, so that an alarm shows)' \
  "$S/config/alarm-settings.yml"
# Horizon seeds its templates at boot with writes, which Sextant allows the editor role only; this
# throwaway instance lets anonymous callers write (a real one gives Horizon a user in oap.auth).
SEXTANT_AUTH_ANONYMOUS=editor "$S/bin/sextant" >"$OUT/sextant.log" 2>&1 & PIDS+=($!)
for _ in $(seq 1 90); do curl -sf http://127.0.0.1:12800/readyz >/dev/null && break; sleep 1; done
curl -sf http://127.0.0.1:12800/readyz >/dev/null || { log "Sextant not ready"; tail "$OUT/sextant.log"; exit 1; }
BENCH=${BENCH_TARGET:-$REPO/benchmarks/target}
CP="$BENCH/classes:$(cat "$BENCH/classpath.txt")"
LG=(java -Xmx256m -cp "$CP" io.sextant.benchmarks.LoadGenerator --target=127.0.0.1:11800 --http=127.0.0.1:12800
    --duration=3600 --topology=bookinfo --verify=false --report=60)
"${LG[@]}" --rate=200 >"$OUT/load-mesh.log" 2>&1 & PIDS+=($!)
"${LG[@]}" --protocol=rover --rate=20 >"$OUT/load-rover.log" 2>&1 & PIDS+=($!)
# Envoy's access logs of the same proxies: their failed requests fill the MESH and MESH_DP Logs tabs.
"${LG[@]}" --protocol=als --rate=50 >"$OUT/load-als.log" 2>&1 & PIDS+=($!)
java -Xmx128m -cp "$CP" io.sextant.benchmarks.EnvoyMetricsTraffic --target=127.0.0.1:11800 --duration=3600 \
  >"$OUT/load-envoy-metrics.log" 2>&1 & PIDS+=($!)

# 3. Horizon against Sextant (GraphQL, template store and Zipkin all on 12800); admin/admin.
sed -e 's#http://localhost:9412/zipkin#http://127.0.0.1:12800/zipkin#; s#http://localhost:12800#http://127.0.0.1:12800#g' \
  "$H/.claude/skills/local-boot/horizon.local.yaml" >"$WORK/horizon.yaml"
(cd "$WORK" && LOG_LEVEL=warn HORIZON_CONFIG="$WORK/horizon.yaml" HORIZON_STATIC_DIR="$H/dist/static" \
  exec node "$H/dist/server.js" >"$OUT/horizon.log" 2>&1) & PIDS+=($!)
for _ in $(seq 1 60); do curl -sf http://127.0.0.1:8081/api/health >/dev/null && break; sleep 1; done
log "Sextant and Horizon up; 150 s of live traffic, then until an alarm has fired, before the pages are opened"
sleep 150
for _ in $(seq 1 30); do
  curl -s http://127.0.0.1:12800/graphql -H 'content-type: application/json' -d '{"query":"{ getAlarm(duration: {start: \"'"$(date -u -d '-30 min' '+%Y-%m-%d %H%M')"'\", end: \"'"$(date -u -d '+1 min' '+%Y-%m-%d %H%M')"'\", step: MINUTE}, paging: {pageNum: 1, pageSize: 1}) { msgs { id } } }"}' \
    | grep -q '"id"' && break
  sleep 10
done

# 4. The pages.
set +e
python3 "$REPO/scripts/horizon/check_horizon.py" --out "$OUT" --chromium "$CHROMIUM" | tee "$OUT/report.txt"
rc=${PIPESTATUS[0]}
echo "--- Horizon's log lines about OAP errors (unique, first 40):"
grep -iE 'oap|graphql|template|error|fail' "$OUT/horizon.log" | grep -viE '"level":30|info' \
  | sed -E 's/"time":[0-9]+,?//; s/"reqId":"[^"]*",?//' | sort | uniq -c | sort -rn | head -40 | tee -a "$OUT/report.txt"
log "screenshots and logs in $OUT ($(($(date +%s) - t0)) s in all)"
exit "$rc"
