#!/usr/bin/env bash
# Builds Sextant, starts a local Elasticsearch (the integ-test distribution Maven fetches; run as a
# dedicated unprivileged user when started as root) and Sextant on it; Ctrl+C stops both.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
./mvnw -B -q -DskipTests install
# Written anew each time: start_elasticsearch reuses a classpath file that exists.
./mvnw -B -q -pl oap-server/sextant-testkit dependency:build-classpath \
  -Dmdep.outputFile="$ROOT/oap-server/sextant-testkit/target/runtime-classpath.txt" -Dmdep.includeScope=runtime
OUT=$(mktemp -d)
# shellcheck source=lib/elasticsearch.sh
source "$ROOT/scripts/lib/elasticsearch.sh"
unset ES_HOSTS # always its own Elasticsearch, whatever the shell has
trap 'if [[ -n "${ES_PID:-}" ]]; then kill "$ES_PID" 2>/dev/null; wait "$ES_PID" 2>/dev/null || true; fi' EXIT
start_elasticsearch "$OUT"
echo "Elasticsearch at $ES_HOSTS (log: $OUT/elasticsearch.log)"
SEXTANT_STORAGE=elasticsearch SEXTANT_ES_HOSTS="$ES_HOSTS" dist/target/sextant/bin/sextant
