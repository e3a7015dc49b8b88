#!/usr/bin/env bash
# Installs schemathesis, the OpenAPI fuzzer behind test/fuzz/, into its own Python virtual environment.
# Idempotent: an environment that already holds the pinned version is kept. The environment is
# $VIGIL_FUZZ_DIR, by default ~/.cache/vigil-fuzz; the tests run $VIGIL_FUZZ_DIR/bin/schemathesis.
# Needs python3 with its venv module; on a Debian-like machine a missing python3-venv is installed with
# apt-get (root or sudo). Without it, the fuzz suite is reported missing and skips (or fails under CI=true).
set -euo pipefail

SCHEMATHESIS_VERSION=4.32.5

HOME_DIR="${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}"
VENV="${VIGIL_FUZZ_DIR:-$HOME_DIR/.cache/vigil-fuzz}"

if [ "$(id -u)" -eq 0 ]; then SUDO=(); elif command -v sudo >/dev/null 2>&1; then SUDO=(sudo -n); else SUDO=(); fi
apt_ok() { [ "$(id -u)" -eq 0 ] || [ "${#SUDO[@]}" -gt 0 ]; }

installed_version() {
  [ -x "$VENV/bin/schemathesis" ] || return 1
  "$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("schemathesis"))' 2>/dev/null
}
if [ "$(installed_version || true)" = "$SCHEMATHESIS_VERSION" ]; then
  echo "fuzz-up: schemathesis $SCHEMATHESIS_VERSION already installed in $VENV"
  exit 0
fi

# Debian's own interpreter when there is one (the one its python3-venv package completes).
PYTHON=/usr/bin/python3
[ -x "$PYTHON" ] || PYTHON="$(command -v python3 || true)"
venv_works() { [ -n "$PYTHON" ] && "$PYTHON" -c 'import venv, ensurepip' >/dev/null 2>&1; }
if ! venv_works; then
  if apt_ok && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    "${SUDO[@]}" apt-get update -qq
    "${SUDO[@]}" apt-get install -y -qq --no-install-recommends python3 python3-venv >/dev/null
    PYTHON=/usr/bin/python3
  else
    echo "fuzz-up: python3 with its venv module is missing and apt-get needs root; the fuzz suite will skip"
    exit 0
  fi
fi

start=$SECONDS
rm -rf "$VENV"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
echo "fuzz-up: schemathesis $SCHEMATHESIS_VERSION installed in $VENV in $((SECONDS - start)) s"
