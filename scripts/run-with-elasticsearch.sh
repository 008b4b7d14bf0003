#!/usr/bin/env bash
# Builds Sextant, starts a local Elasticsearch (the integ-test distribution Maven fetches; run as a
# dedicated unprivileged user when started as root) and Sextant on it; Ctrl+C stops both.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
./mvnw -B -q -DskipTests install
CP_FILE=oap-server/sextant-testkit/target/runtime-classpath.txt
./mvnw -B -q -pl oap-server/sextant-testkit dependency:build-classpath -Dmdep.outputFile="$PWD/$CP_FILE" -Dmdep.includeScope=runtime
HOSTS_FILE=$(mktemp)
rm -f "$HOSTS_FILE"
java -cp "oap-server/sextant-testkit/target/classes:$(cat "$CP_FILE")" \
  io.sextant.testkit.elasticsearch.LocalElasticsearch "$HOSTS_FILE" &
ES_PID=$!
trap 'kill "$ES_PID" 2>/dev/null; wait "$ES_PID" 2>/dev/null || true' EXIT
for _ in $(seq 1 180); do
  [[ -s "$HOSTS_FILE" ]] && break
  kill -0 "$ES_PID" 2>/dev/null || { echo "Elasticsearch failed to start" >&2; exit 1; }
  sleep 1
done
[[ -s "$HOSTS_FILE" ]] || { echo "Elasticsearch did not start in time" >&2; exit 1; }
SEXTANT_STORAGE=elasticsearch SEXTANT_ES_HOSTS="$(cat "$HOSTS_FILE")" dist/target/sextant/bin/sextant
