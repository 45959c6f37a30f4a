#!/usr/bin/env bash
# Runs every test: C unit tests (ctest), Java unit tests, the end-to-end tests against the
# real service and responder. Installs what the tests need first when run as root on a
# fresh Debian machine.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  # build tools; the namespace lab (iproute2, nftables, iptables, libnetfilter-queue for the delay line)
  pkgs="cmake gcc make curl iproute2 nftables iptables libnetfilter-queue-dev libnfnetlink-dev util-linux"
  missing=""
  for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
  if [ -n "$missing" ]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing
  fi
fi

./mvnw -B -ntp install "$@"
