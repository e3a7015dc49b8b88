#!/usr/bin/env bash
# Runs a real single-node OpenSearch 2.19 for development and tests, in the foreground, built from
# Maven Central jars by tools/opensearch-node (no distribution, no container). Rebuilds the launcher
# first when its sources changed (Maven keeps its downloads in ~/.m2). SIGTERM or Ctrl-C stops it.
#   OPENSEARCH_HTTP_PORT       HTTP port on 127.0.0.1 (default 9200)
#   OPENSEARCH_TRANSPORT_PORT  transport port or range on 127.0.0.1 (default 9300-9399)
#   OPENSEARCH_DATA            data folder (default data/opensearch in the repository)
#   OPENSEARCH_JAVA_OPTS       JVM options (default -Xms1g -Xmx2g)
# Arguments -Ekey=value add node settings (e.g. -Eindices.query.bool.max_clause_count=2048).
# `scripts/opensearch.sh --build` only builds. The node is ready when GET /_cluster/health answers.
set -euo pipefail
cd "$(dirname "$0")/.."

project=tools/opensearch-node
jar="$project/target/opensearch-node.jar"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if ! command -v mvn >/dev/null 2>&1 || ! command -v java >/dev/null 2>&1; then
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq maven openjdk-17-jdk-headless >/dev/null
fi

stale() {
  if [ ! -f "$jar" ] || [ ! -d "$project/target/lib" ]; then return 0; fi
  [ -n "$(find "$project/pom.xml" "$project/src" -newer "$jar" -print -quit)" ]
}

port="${OPENSEARCH_HTTP_PORT:-9200}"
if [ "${1:-}" != --build ] && curl -fsS --max-time 3 "http://127.0.0.1:$port/" >/dev/null 2>&1; then
  # Also keeps a rebuild from replacing the jars under a running node.
  echo "something already answers on http://127.0.0.1:$port (an OpenSearch node?); stop it or set OPENSEARCH_HTTP_PORT" >&2
  exit 1
fi

if stale; then
  echo "building $jar" >&2
  # Maven 3.8 prints bare colour resets even when quiet: drop them.
  mvn -q -B -f "$project/pom.xml" package 2>&1 | sed 's/\x1b\[[0-9;]*m//g' >&2
fi
if [ "${1:-}" = --build ]; then exit 0; fi

export OPENSEARCH_DATA="${OPENSEARCH_DATA:-$PWD/data/opensearch}"
mkdir -p "$OPENSEARCH_DATA/tmp"
# shellcheck disable=SC2086 # the options are words on purpose
exec java ${OPENSEARCH_JAVA_OPTS:--Xms1g -Xmx2g} \
  -XX:+ExitOnOutOfMemoryError -Dfile.encoding=UTF-8 -Djava.locale.providers=SPI,COMPAT \
  -Djna.nosys=true -Dio.netty.noUnsafe=true -Dio.netty.recycler.maxCapacityPerThread=0 \
  -Djava.io.tmpdir="$OPENSEARCH_DATA/tmp" \
  -jar "$jar" "$@"
