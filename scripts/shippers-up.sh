#!/usr/bin/env bash
# Installs the real log shippers the shipper tests (test/shippers/) start against the service's
# Elasticsearch-compatible receiver. Idempotent: what is already there is kept.
#   rsyslog with omelasticsearch  Debian packages rsyslog and rsyslog-elasticsearch (system-wide)
#   syslog-ng with elasticsearch-http()  Debian's syslog-ng packages, unpacked into the cache directory
#                                     (they conflict with rsyslog as installed packages; unpacked, both fit)
#   python3-elasticsearch             Debian's official Python client (7.17), system-wide
#   vigil-es-ship                     test/shippers/go-client built with Go: a small shipper on the
#                                     official Go Elasticsearch client (its product check included)
# The cache directory is $VIGIL_SHIPPERS_DIR, by default ~/.cache/vigil-shippers. Each step prints how
# long it took. Needs root (or sudo) for apt-get; without it, the missing shippers are reported and the
# tests that need them skip (or fail under CI=true).
set -euo pipefail

# The same home directory the tests find (os.homedir()), also when HOME is not set.
HOME_DIR="${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}"
export HOME="$HOME_DIR"  # go keeps its module and build caches under it
CACHE="${VIGIL_SHIPPERS_DIR:-$HOME_DIR/.cache/vigil-shippers}"
mkdir -p "$CACHE"

if [ "$(id -u)" -eq 0 ]; then SUDO=(); elif command -v sudo >/dev/null 2>&1; then SUDO=(sudo -n); else SUDO=(); fi
apt_ok() { [ "$(id -u)" -eq 0 ] || [ "${#SUDO[@]}" -gt 0 ]; }
export DEBIAN_FRONTEND=noninteractive
updated=false
apt_update() {
  if [ "$updated" = false ]; then "${SUDO[@]}" apt-get update -qq; updated=true; fi
}
timed() {
  local name="$1"; shift
  local start=$SECONDS
  "$@"
  echo "shippers-up: $name ready in $((SECONDS - start)) s"
}

rsyslog_present() { command -v rsyslogd >/dev/null 2>&1 && compgen -G '/usr/lib/*/rsyslog/omelasticsearch.so' >/dev/null; }
install_rsyslog() {
  apt_update
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends rsyslog rsyslog-elasticsearch >/dev/null
}

SYSLOG_NG="$CACHE/syslog-ng"
syslog_ng_present() { [ -x "$SYSLOG_NG/root/usr/sbin/syslog-ng" ] && [ -f "$SYSLOG_NG/root/usr/lib/syslog-ng/3.38/libhttp.so" ]; }
install_syslog_ng() {
  apt_update
  # The libraries syslog-ng links against are ordinary packages that conflict with nothing.
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends libivykis0 libnet1 libpcre3 libwrap0 libjson-c5 libglib2.0-0 libcurl4 >/dev/null
  local debs
  debs="$(mktemp -d)"
  (cd "$debs" && chmod 777 . && apt-get download -qq syslog-ng-core syslog-ng-mod-http syslog-ng-scl 2>/dev/null)
  rm -rf "$SYSLOG_NG"
  mkdir -p "$SYSLOG_NG/root"
  for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$SYSLOG_NG/root"; done
  rm -rf "$debs"
}

if rsyslog_present; then echo "shippers-up: rsyslog with omelasticsearch already installed"
elif apt_ok; then timed "rsyslog (apt-get install rsyslog rsyslog-elasticsearch)" install_rsyslog
else echo "shippers-up: rsyslog missing and apt-get needs root; its test will skip"
fi

if syslog_ng_present; then echo "shippers-up: syslog-ng already unpacked in $SYSLOG_NG"
elif apt_ok; then timed "syslog-ng (Debian packages unpacked into $SYSLOG_NG)" install_syslog_ng
else echo "shippers-up: syslog-ng missing and apt-get needs root; its test will skip"
fi

python_client_present() { [ -f /usr/lib/python3/dist-packages/elasticsearch/__init__.py ] && [ -x /usr/bin/python3 ]; }
install_python_client() {
  apt_update
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends python3 python3-elasticsearch >/dev/null
}
if python_client_present; then echo "shippers-up: python3-elasticsearch already installed"
elif apt_ok; then timed "python3-elasticsearch (apt-get install)" install_python_client
else echo "shippers-up: python3-elasticsearch missing and apt-get needs root; its test will skip"
fi

GO_CLIENT="$CACHE/go-es-client/vigil-es-ship"
GO_SOURCES="$(cd "$(dirname "$0")/.." && pwd)/test/shippers/go-client"
go_client_fresh() {
  [ -x "$GO_CLIENT" ] && [ -z "$(find "$GO_SOURCES" -newer "$GO_CLIENT" -type f)" ]
}
build_go_client() {
  mkdir -p "$(dirname "$GO_CLIENT")"
  (cd "$GO_SOURCES" && go build -buildvcs=false -o "$GO_CLIENT" .)
}
if go_client_fresh; then echo "shippers-up: vigil-es-ship already built in $GO_CLIENT"
elif command -v go >/dev/null 2>&1; then timed "vigil-es-ship (go build of test/shippers/go-client)" build_go_client
else echo "shippers-up: Go is missing; the Go client's test will skip"
fi
