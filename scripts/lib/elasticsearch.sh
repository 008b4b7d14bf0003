# Sourced by scripts/run-with-elasticsearch.sh and the benchmark scripts: start_elasticsearch OUT
# starts the testkit's LocalElasticsearch (unless ES_HOSTS names one already), logging to
# OUT/elasticsearch.log, and sets ES_PID (empty when none was started) and ES_HOSTS. Needs ROOT;
# the caller stops ES_PID when it is done.
start_elasticsearch() {
  local out=$1
  ES_PID=""
  if [[ -n "${ES_HOSTS:-}" ]]; then
    return 0
  fi
  local cp_file="$ROOT/oap-server/sextant-testkit/target/runtime-classpath.txt"
  if [[ ! -s "$cp_file" ]]; then
    (cd "$ROOT" && ./mvnw -B -q -o -pl oap-server/sextant-testkit dependency:build-classpath \
      -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=runtime)
  fi
  local hosts_file="$out/es-hosts"
  rm -f "$hosts_file"
  "${JAVA_HOME:+$JAVA_HOME/bin/}java" -cp "$ROOT/oap-server/sextant-testkit/target/classes:$(cat "$cp_file")" \
    io.sextant.testkit.elasticsearch.LocalElasticsearch "$hosts_file" >"$out/elasticsearch.log" 2>&1 &
  ES_PID=$!
  for _ in $(seq 1 180); do
    [[ -s "$hosts_file" ]] && break
    kill -0 "$ES_PID" 2>/dev/null || { echo "Elasticsearch failed to start ($out/elasticsearch.log)" >&2; exit 1; }
    sleep 1
  done
  [[ -s "$hosts_file" ]] || { echo "Elasticsearch did not start in time ($out/elasticsearch.log)" >&2; exit 1; }
  ES_HOSTS="$(cat "$hosts_file")"
}
