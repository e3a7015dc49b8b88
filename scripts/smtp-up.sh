#!/usr/bin/env bash
# Installs aiosmtpd, the real SMTP server the mail channel's tests send to (test/notifications/), into
# its own Python virtual environment. Idempotent: an environment that already holds the pinned version
# is kept. The environment is $VIGIL_SMTP_DIR, by default ~/.cache/vigil-smtp; the tests run
# $VIGIL_SMTP_DIR/bin/aiosmtpd. Needs python3 with its venv module (scripts/fuzz-up.sh installs it on a
# Debian-like machine); without it, the mail tests skip (or fail under CI=true).
set -euo pipefail

AIOSMTPD_VERSION=1.4.6

HOME_DIR="${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}"
VENV="${VIGIL_SMTP_DIR:-$HOME_DIR/.cache/vigil-smtp}"

installed_version() {
  [ -x "$VENV/bin/aiosmtpd" ] || return 1
  "$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("aiosmtpd"))' 2>/dev/null
}
if [ "$(installed_version || true)" = "$AIOSMTPD_VERSION" ]; then
  echo "smtp-up: aiosmtpd $AIOSMTPD_VERSION already installed in $VENV"
  exit 0
fi

PYTHON=/usr/bin/python3
[ -x "$PYTHON" ] || PYTHON="$(command -v python3 || true)"
if [ -z "$PYTHON" ] || ! "$PYTHON" -c 'import venv, ensurepip' >/dev/null 2>&1; then
  echo "smtp-up: python3 with its venv module is missing; the mail tests will skip"
  exit 0
fi

start=$SECONDS
rm -rf "$VENV"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "aiosmtpd==$AIOSMTPD_VERSION"
echo "smtp-up: aiosmtpd $AIOSMTPD_VERSION installed in $VENV in $((SECONDS - start)) s"
