#!/usr/bin/env bash
# Runs the JMH benchmarks of this module. Builds nothing: package the module first with
#   mvn -B -q -o -pl benchmarks package
# With no arguments it runs the aggregator benchmarks with a short schedule; any arguments are
# passed to org.openjdk.jmh.Main instead (e.g. "MqeBenchmark -f 1", or "-l" to list benchmarks).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLASSES="$ROOT/benchmarks/target/classes"
CLASSPATH_FILE="$ROOT/benchmarks/target/classpath.txt"
if [[ ! -f "$CLASSES/META-INF/BenchmarkList" || ! -f "$CLASSPATH_FILE" ]]; then
  echo "benchmarks are not built; run: mvn -B -q -o -pl benchmarks package" >&2
  exit 2
fi
if [[ $# -eq 0 ]]; then
  set -- AggregatorBenchmark -f 1 -wi 2 -i 3 -w 2s -r 3s
fi
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
exec "$JAVA" -cp "$CLASSES:$(cat "$CLASSPATH_FILE")" org.openjdk.jmh.Main "$@"
