# Sourced by the benchmark scripts: CPU used so far, in ticks (1/100 s), user and system.
# ticks PID: one process. es_ticks: Elasticsearch's processes on this machine (the testkit's or
# ES_HOSTS's). machine_ticks: busy and stolen ticks of all cores ("busy steal").
ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
es_ticks() {
  for p in $(pgrep -f 'org.elasticsearch.bootstrap|es.networkaddress'); do ticks "$p"; done \
    | awk '{s += $1} END {print s + 0}'
}
machine_ticks() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8, $9}' /proc/stat; }
