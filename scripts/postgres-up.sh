#!/usr/bin/env bash
# Installs (when missing) and starts Debian's PostgreSQL, then makes sure the role and database the
# test suite uses exist and accept password-less connections over 127.0.0.1:
#   postgres://postgres@127.0.0.1:5432/test
# Safe to run again: every step checks first. Needs root (or sudo) on a Debian-like machine.
set -euo pipefail

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if ! command -v pg_lsclusters >/dev/null 2>&1; then
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi

read -r version cluster port status _ < <(pg_lsclusters --no-header | head -n 1) || true
if [ -z "${version:-}" ]; then
  version=$(ls /usr/lib/postgresql | sort -V | tail -n 1)
  as_root pg_createcluster "$version" main --start >/dev/null
  read -r version cluster port status _ < <(pg_lsclusters --no-header | head -n 1)
fi

conf_dir="/etc/postgresql/$version/$cluster"
hba="$conf_dir/pg_hba.conf"
# Local development and CI only: trust loopback TCP for the test role.
if ! as_root grep -q '^host all postgres 127.0.0.1/32 trust' "$hba"; then
  as_root sed -i '1i host all postgres 127.0.0.1/32 trust\nhost all postgres ::1/128 trust' "$hba"
  restart=1
fi
if [ "$port" != 5432 ]; then
  as_root sed -i "s/^port = .*/port = 5432/" "$conf_dir/postgresql.conf"
  restart=1
fi
if [ "$status" != online ] || [ -n "${restart:-}" ]; then
  as_root pg_ctlcluster "$version" "$cluster" restart
fi

for _ in $(seq 1 30); do
  if psql -h 127.0.0.1 -U postgres -d postgres -Atc 'SELECT 1' >/dev/null 2>&1; then break; fi
  sleep 1
done
if ! psql -h 127.0.0.1 -U postgres -d postgres -Atc "SELECT 1 FROM pg_database WHERE datname = 'test'" | grep -q 1; then
  psql -h 127.0.0.1 -U postgres -d postgres -qc 'CREATE DATABASE test'
fi
echo "PostgreSQL $version is up: postgres://postgres@127.0.0.1:5432/test"
