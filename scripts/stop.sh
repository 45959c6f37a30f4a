#!/usr/bin/env bash
# Stops the service and responder that scripts/start.sh started (SIGTERM, then waits).
cd "$(dirname "$0")/.." || exit 1
for name in service responder; do
  pidfile="run/$name.pid"
  [ -f "$pidfile" ] || continue
  pid=$(cat "$pidfile")
  if kill "$pid" 2>/dev/null; then
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    echo "stopped $name ($pid)"
  fi
  rm -f "$pidfile"
done
