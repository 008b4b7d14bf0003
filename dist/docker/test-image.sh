#!/usr/bin/env bash
# Runs Sextant's image (dist/docker/build-image.sh) with podman the way the Helm chart runs it
# (uid 10001, read-only root filesystem, writable /tmp only, no capabilities, a memory limit) and
# checks the image contract. Prints PASS/FAIL/SKIP per check and "N passed, N failed" last; exits
# non-zero if any check failed.
#
#   dist/docker/test-image.sh [image]      (default localhost/sextant:<version of dist/pom.xml>)
#
# Needs root, podman and curl. With grpcurl on PATH (go install
# github.com/fullstorydev/grpcurl/cmd/grpcurl@v1.9.4) it also sends one service-mesh metric.
set -uo pipefail   # no -e: every check runs and reports

DOCKER_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VERSION="$(sed -n '/<parent>/,/<\/parent>/s|.*<version>\(.*\)</version>.*|\1|p' "$DOCKER_DIR/../pom.xml")"
IMAGE="${1:-localhost/sextant:$VERSION}"
GIB=1073741824
NAME="sextant-image-test-$$"
WORK="$(mktemp -d)"
trap 'podman rm -f -t 0 "$NAME" >/dev/null 2>&1; rm -rf "$WORK"' EXIT

passed=0 failed=0
pass() { echo "PASS $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
skip() { echo "SKIP $*"; }
check() { # check "description" command...: PASS when the command succeeds
  local what="$1"; shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}
# After a container run: show its output when its exit code was not the expected one.
show_if() { # show_if expected-code actual-code file
  if [[ "$1" != "$2" ]]; then echo "     (exit code $2, expected $1) output:"; head -n 20 "$3" | sed 's/^/       /'; fi
}
# True when the first number lies within [low, high].
between() { (( $1 >= $2 && $1 <= $3 )); }

podman image exists "$IMAGE" || { echo "no image $IMAGE: run dist/docker/build-image.sh first" >&2; exit 1; }

# --- how podman runs here ----------------------------------------------------------------------
# crun refuses hosts with cgroup v1 and v2 mounted side by side ("cgroups in hybrid mode not
# supported"); runc copes, so it is used where installed. SEXTANT_OCI_RUNTIME picks another.
RUNTIME=("--runtime" "${SEXTANT_OCI_RUNTIME:-runc}")
if [[ -z "${SEXTANT_OCI_RUNTIME:-}" ]] && ! command -v runc >/dev/null; then RUNTIME=(); fi
# podman's default ulimits (nofile 1048576) exceed the hard limits of a host that denies
# CAP_SYS_RESOURCE, and the runtime then fails with "setrlimit: Operation not permitted".
LIMIT="$(ulimit -Hn)"
[[ "$LIMIT" == unlimited || "$LIMIT" -gt 16384 ]] && LIMIT=16384
# The chart's securityContext: read-only root, only /tmp writable, no capabilities.
# shellcheck disable=SC2054  # the commas are inside option values
RUN=(podman run "${RUNTIME[@]}" --ulimit "nofile=$LIMIT:$LIMIT" --ulimit "nproc=$LIMIT:$LIMIT"
  --read-only --read-only-tmpfs=false --tmpfs /tmp:rw,size=256m,mode=1777
  --cap-drop=ALL --security-opt=no-new-privileges)

echo "image $IMAGE, OCI runtime ${RUNTIME[1]:-default}"

# --- 1. image configuration --------------------------------------------------------------------
config="$(podman image inspect --format \
  '{{.Config.User}}|{{json .Config.Entrypoint}}|{{.Config.WorkingDir}}|{{range .Config.Env}}{{.}};{{end}}|{{json .Config.ExposedPorts}}' \
  "$IMAGE")"
IFS='|' read -r user entrypoint workdir env ports <<<"$config"
check "config: USER is numeric non-root ($user)" [ "$user" = 10001:10001 ]
check "config: ENTRYPOINT $entrypoint" [ "$entrypoint" = '["/opt/sextant/bin/sextant"]' ]
check "config: WORKDIR $workdir" [ "$workdir" = /opt/sextant ]
check "config: JAVA_HEAP_OPTS is a share of the memory limit" \
  grep -q 'JAVA_HEAP_OPTS=-XX:InitialRAMPercentage=25 -XX:MaxRAMPercentage=60;' <<<"$env"
check "config: SEXTANT_CONFIG set" grep -q 'SEXTANT_CONFIG=/opt/sextant/config/application.yml;' <<<"$env"
check "config: EXPOSE 11800 12800" grep -q '"11800/tcp".*"12800/tcp"' <<<"$ports"

# --- 2. user and file system -------------------------------------------------------------------
# One shell in the container reports; the checks read its answers.
# shellcheck disable=SC2016  # expanded by the container's shell
"${RUN[@]}" --rm --entrypoint sh "$IMAGE" -c '
  echo "uid=$(id -u) gid=$(id -g)"
  echo "owner=$(stat -c %u:%g /opt/sextant/bin/sextant)"
  echo "writable_by_anyone=$(find /opt/sextant -perm /222 | wc -l)"
  touch /opt/sextant/lib/x 2>/dev/null && echo opt=writable || echo opt=read-only
  touch /x 2>/dev/null && echo root=writable || echo root=read-only
  touch /tmp/x 2>/dev/null && echo tmp=writable || echo tmp=read-only' > "$WORK/fs.txt" 2>&1
show_if 0 $? "$WORK/fs.txt"
check "runs as uid/gid 10001 ($(grep uid= "$WORK/fs.txt"))" grep -qx 'uid=10001 gid=10001' "$WORK/fs.txt"
check "/opt/sextant owned by root" grep -qx 'owner=0:0' "$WORK/fs.txt"
check "/opt/sextant has no writable file or directory" grep -qx 'writable_by_anyone=0' "$WORK/fs.txt"
check "/opt/sextant not writable by the process" grep -qx 'opt=read-only' "$WORK/fs.txt"
check "--read-only root file system holds" grep -qx 'root=read-only' "$WORK/fs.txt"
check "/tmp (tmpfs) writable" grep -qx 'tmp=writable' "$WORK/fs.txt"

# The chart's init container calls keytool by name to turn a PEM CA into a PKCS#12 trust store.
"${RUN[@]}" --rm -e TRUST_STORE_PASSWORD=changeit --entrypoint sh "$IMAGE" -c '
  cd /tmp &&
  keytool -genkeypair -keyalg EC -alias ca -dname CN=test-ca -keystore ca.p12 -storepass changeit &&
  keytool -exportcert -rfc -alias ca -keystore ca.p12 -storepass changeit -file ca.pem &&
  keytool -importcert -noprompt -alias elasticsearch-ca -file ca.pem -keystore truststore.p12 \
    -storetype PKCS12 -storepass:env TRUST_STORE_PASSWORD' > "$WORK/keytool.txt" 2>&1
show_if 0 $? "$WORK/keytool.txt"
check "keytool on PATH builds a PKCS#12 trust store (chart init container)" \
  grep -q 'Certificate was added to keystore' "$WORK/keytool.txt"

# --- 3. heap from the memory limit -------------------------------------------------------------
# shellcheck disable=SC2016  # expanded by the container's shell
"${RUN[@]}" --rm --memory=1g --entrypoint sh "$IMAGE" -c '
  cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null | head -n 1
  java $JAVA_HEAP_OPTS -XX:+PrintFlagsFinal -version' > "$WORK/flags.txt" 2>&1
show_if 0 $? "$WORK/flags.txt"
limit="$(head -n 1 "$WORK/flags.txt")"
check "--memory=1g reaches the container's cgroup (limit $limit)" [ "$limit" = "$GIB" ]
heap="$(awk '$2 == "MaxHeapSize" {print $4}' "$WORK/flags.txt")"
check "java with the image's JAVA_HEAP_OPTS under --memory=1g: MaxHeapSize=${heap:-?} (~60% of 1 GiB)" \
  between "${heap:-0}" $((GIB * 55 / 100)) $((GIB * 65 / 100))

# --- 4. launcher options -----------------------------------------------------------------------
# An unknown argument makes Sextant print its usage and exit 2 right after the JVM has printed
# the options it was given: enough to see what the launcher passed.
"${RUN[@]}" --rm -e JAVA_HEAP_OPTS=-Xmx123m -e JAVA_OPTS=-XX:+PrintCommandLineFlags "$IMAGE" --no-such-option \
  > "$WORK/launcher.txt" 2>&1
code=$?
show_if 2 "$code" "$WORK/launcher.txt"
check "JAVA_HEAP_OPTS=-Xmx123m honoured (MaxHeapSize=128974848)" grep -q -- '-XX:MaxHeapSize=128974848' "$WORK/launcher.txt"
check "JAVA_OPTS replaces the launcher's defaults (no -XX:+UseParallelGC)" \
  bash -c "grep -q -- '-XX:+PrintCommandLineFlags' '$WORK/launcher.txt' && ! grep -q -- '-XX:+UseParallelGC' '$WORK/launcher.txt'"
check "arguments reach Sextant (usage printed, exit code $code)" \
  bash -c "[ $code = 2 ] && grep -q 'usage: sextant' '$WORK/launcher.txt'"

# --- 5. the server -----------------------------------------------------------------------------
# Host network with ports chosen here: nothing to map, and the checks talk to 127.0.0.1 only.
free_port() {
  local p
  for p in $(shuf -i 20000-29999 -n 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
  return 1
}
HTTP_PORT="$(free_port)"; GRPC_PORT="$(free_port)"
while [[ "$GRPC_PORT" == "$HTTP_PORT" ]]; do GRPC_PORT="$(free_port)"; done
BASE="http://127.0.0.1:$HTTP_PORT"
"${RUN[@]}" -d --name "$NAME" --network=host --memory=1g \
  -e SEXTANT_SERVER_HTTP_PORT="$HTTP_PORT" -e SEXTANT_SERVER_GRPC_PORT="$GRPC_PORT" \
  -e SEXTANT_CORE_COLLECTOR_ID=image-test -e SEXTANT_CORE_FLUSH_INTERVAL_MILLIS=1000 \
  -e JAVA_OPTS="-XX:+UseParallelGC -XX:MaxDirectMemorySize=64m -XX:+ExitOnOutOfMemoryError -Dsextant.image.test=1" \
  "$IMAGE" > /dev/null
started=$SECONDS
ready=""
while (( SECONDS - started < 120 )); do
  ready="$(curl -s -o /dev/null -w '%{http_code}' "$BASE/readyz")"
  [[ "$ready" == 200 ]] && break
  [[ "$(podman inspect --format '{{.State.Running}}' "$NAME" 2>/dev/null)" == true ]] || break
  sleep 1
done
check "ready: GET /readyz answers $ready after $((SECONDS - started)) s" [ "$ready" = 200 ]
podman logs "$NAME" > "$WORK/server.log" 2>&1
if [[ "$ready" != 200 ]]; then
  # Nothing further can pass; the log says why.
  echo "     server log:"; tail -n 30 "$WORK/server.log" | sed 's/^/       /'
  echo "$passed passed, $failed failed"
  exit 1
fi
check "SEXTANT_CORE_COLLECTOR_ID honoured: log says (collector image-test)" \
  grep -q '(collector image-test)' "$WORK/server.log"
check "SEXTANT_SERVER_*_PORT honoured: log names ports $GRPC_PORT and $HTTP_PORT" \
  grep -q "gRPC receivers on 0.0.0.0:$GRPC_PORT, GraphQL on http://0.0.0.0:$HTTP_PORT" "$WORK/server.log"

podman exec "$NAME" sh -c 'tr "\0" " " < /proc/1/cmdline; echo; grep ^Uid: /proc/1/status' > "$WORK/proc.txt" 2>&1
echo "     java command line: $(head -n 1 "$WORK/proc.txt")"
check "the JVM is PID 1 and runs as uid 10001 ($(grep Uid: "$WORK/proc.txt" | tr -s '\t ' ' '))" \
  grep -qE '^Uid:\s+10001\s+10001\s+10001\s+10001' "$WORK/proc.txt"
check "JVM gets JAVA_HEAP_OPTS then JAVA_OPTS (-XX:MaxRAMPercentage=60 ... -Dsextant.image.test=1)" \
  grep -q -- '-XX:MaxRAMPercentage=60 -XX:+UseParallelGC .*-Dsextant.image.test=1' "$WORK/proc.txt"
# jcmd (in the image for diagnostics) asks the running JVM what heap it chose.
server_heap="$(podman exec "$NAME" jcmd 1 VM.flags 2>/dev/null | tr ' ' '\n' | sed -n 's/^-XX:MaxHeapSize=//p')"
check "running server under --memory=1g: jcmd VM.flags MaxHeapSize=${server_heap:-?} (~60% of 1 GiB)" \
  between "${server_heap:-0}" $((GIB * 55 / 100)) $((GIB * 65 / 100))

code="$(curl -s -o "$WORK/graphql.json" -w '%{http_code}' -H 'Content-Type: application/json' \
  -d '{"query":"{ listLayers }"}' "$BASE/graphql")"
echo "     GraphQL answer: $(head -c 200 "$WORK/graphql.json")"
check "GraphQL { listLayers } answers $code with data" \
  bash -c "[ $code = 200 ] && grep -q '\"data\":{\"listLayers\":\[' '$WORK/graphql.json'"

# One HTTP service-mesh metric over gRPC, described by the .proto files inside the image's jars.
if command -v grpcurl >/dev/null && command -v python3 >/dev/null; then
  podman exec "$NAME" sh -c 'cat /opt/sextant/lib/apm-network-*.jar' > "$WORK/apm-network.jar"
  python3 -m zipfile -e "$WORK/apm-network.jar" "$WORK/protos"
  now="$(date +%s%3N)"
  grpcurl -plaintext -import-path "$WORK/protos" -proto service-mesh-probe/service-mesh.proto -d @ \
    "127.0.0.1:$GRPC_PORT" skywalking.v3.ServiceMeshMetricService/collect > "$WORK/grpc.txt" 2>&1 <<EOF
{"httpMetrics": {"metrics": [{"startTime": "$((now - 20))", "endTime": "$now",
  "sourceServiceName": "image-test-client", "sourceServiceInstance": "client-1",
  "destServiceName": "image-test-server", "destServiceInstance": "server-1",
  "endpoint": "GET:/ping", "latency": 20, "responseCode": 200, "status": true,
  "protocol": "HTTP", "detectPoint": "server"}]}}
EOF
  grpc_rc=$?
  check "gRPC ServiceMeshMetricService/collect accepts one metric (grpcurl: $(tr -d '\n' < "$WORK/grpc.txt"))" \
    [ "$grpc_rc" = 0 ]
  accepted="$(curl -s "$BASE/metrics" | grep '^sextant_receiver_records_accepted' | grep 'receiver="mesh"' | awk '{print $2}')"
  check "/metrics counts it: mesh records accepted = ${accepted:-?}" [ "${accepted%.*}" = 1 ]
  # And it is queryable once written (SEXTANT_CORE_FLUSH_INTERVAL_MILLIS=1000 above).
  for _ in $(seq 20); do
    curl -s -H 'Content-Type: application/json' -d '{"query":"{ listServices { name layers } }"}' \
      "$BASE/graphql" > "$WORK/services.json"
    grep -q image-test-server "$WORK/services.json" && break
    sleep 1
  done
  check "GraphQL listServices shows it: $(head -c 160 "$WORK/services.json")" \
    grep -q '"name":"image-test-server"' "$WORK/services.json"
else
  skip "gRPC mesh message (no grpcurl or python3 on PATH)"
fi

# --- 6. drain on SIGTERM -----------------------------------------------------------------------
# What Kubernetes does: SIGTERM, then readiness must fail while the server still drains.
stop_started=$SECONDS
podman kill --signal TERM "$NAME" > /dev/null
draining=""
for _ in 1 2 3 4 5 6 7 8 9 10; do
  draining="$(curl -s -o /dev/null -w '%{http_code}' "$BASE/readyz")"
  [[ "$draining" == 503 ]] && break
  sleep 0.3
done
check "after SIGTERM /readyz answers 503 while draining" [ "$draining" = 503 ]
exit_code="$(timeout 45 podman wait "$NAME" 2>/dev/null)"
elapsed=$((SECONDS - stop_started))
podman logs "$NAME" > "$WORK/server.log" 2>&1
# Bound: drainReadinessSeconds 5 + shutdownGraceSeconds 5 + drainTimeoutSeconds 30 (the defaults),
# inside the chart's terminationGracePeriodSeconds of 60.
check "exits by itself on SIGTERM with code ${exit_code:-none} (0 or 143) after ${elapsed} s (<= 40 s)" \
  bash -c "[[ '${exit_code:-}' =~ ^(0|143)$ ]] && (( $elapsed <= 40 ))"
check "log shows the drain: 'draining: not ready'" grep -q 'draining: not ready' "$WORK/server.log"
check "log shows a clean stop: 'everything accepted was written'" \
  grep -q 'Sextant stopped; everything accepted was written' "$WORK/server.log"
echo "     shutdown log:"
sed -n '/draining: not ready/,$p' "$WORK/server.log" | sed 's/^/       /'

echo "$passed passed, $failed failed"
(( failed == 0 ))
