#!/usr/bin/env bash
# For CI and scripted runs: builds the OpenSearch launcher if needed, starts the single-node OpenSearch
# of scripts/opensearch.sh in the background (its own process group, output to
# .artifacts/opensearch-<port>.log, process id in .artifacts/opensearch-<port>.pid) and waits until
# GET /_cluster/health reports yellow or green. Does nothing when a node already answers on the port.
# Stop it with: kill -TERM -- -"$(cat .artifacts/opensearch-9200.pid)"
set -euo pipefail
cd "$(dirname "$0")/.."

port="${OPENSEARCH_HTTP_PORT:-9200}"
url="http://127.0.0.1:$port"
timeout="${OPENSEARCH_START_TIMEOUT:-180}"
log=.artifacts/opensearch-$port.log
pidfile=.artifacts/opensearch-$port.pid
mkdir -p .artifacts

healthy() { curl -fsS --max-time 5 "$url/_cluster/health?wait_for_status=yellow&timeout=1s" 2>/dev/null | grep -Eq '"status":"(yellow|green)"'; }

if healthy; then
  echo "OpenSearch is already up: $url"
  exit 0
fi

scripts/opensearch.sh --build
setsid scripts/opensearch.sh >"$log" 2>&1 </dev/null &
pid=$!
echo "$pid" >"$pidfile"

deadline=$((SECONDS + timeout))
until healthy; do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "OpenSearch exited before it was ready; the end of $log:" >&2
    tail -n 40 "$log" >&2
    exit 1
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "OpenSearch did not report yellow or green health within ${timeout}s; the end of $log:" >&2
    tail -n 40 "$log" >&2
    kill -TERM -- -"$pid" 2>/dev/null || true
    exit 1
  fi
  sleep 1
done
echo "OpenSearch is up: $url (log: $log, stop: kill -TERM -- -$pid)"
