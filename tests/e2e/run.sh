#!/usr/bin/env bash
# `make e2e`: the live federation's suite (tests/e2e/README.md). Installs etcd (Debian's
# etcd-server) when missing, builds the Go programs into $FEDGATE_E2E_CACHE when missing, then runs
# pytest tests/e2e. Without Go it says so and exits 0 having run nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=.venv/bin
if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then
    export PATH="$PATH:/usr/local/go/bin"
  else
    echo "make e2e: Go is not installed, so the live federation cannot be built: nothing run."
    exit 0
  fi
fi
if ! command -v etcd >/dev/null 2>&1; then
  echo "make e2e: installing etcd (Debian package etcd-server)"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq etcd-server >/dev/null
fi
nice -n 10 "$BIN/python" -m tests.e2e.build
FEDGATE_E2E=1 exec "$BIN/pytest" tests/e2e "$@"
