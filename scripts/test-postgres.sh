#!/usr/bin/env bash
# Starts a private PostgreSQL cluster for the archive tests and prints its JDBC URL.
#   scripts/test-postgres.sh start DIR   -> initdb in DIR (if new), start on a free 127.0.0.1 port,
#                                           create user/database nmws_test, print the URL
#   scripts/test-postgres.sh stop DIR
# A cluster started again (start DIR after stop DIR) listens on the port it had, so clients
# holding its URL reconnect: the fault tests stop and start PostgreSQL under a running service.
# NMWS_PG_LISTEN (default 127.0.0.1): the addresses to listen on, comma-separated; with
# NMWS_PG_TRUST_NET (a CIDR block) clients from there may connect too (the namespace lab's
# points reach one shared archive over their management links).
# Runs the server as the postgres user when called as root (postgres refuses to run as root).
# Nothing here is shared with a system cluster: data, socket and log all live in DIR.
set -euo pipefail
cmd=${1:?start|stop}
dir=${2:?data directory}

bindir=""
for d in /usr/lib/postgresql/*/bin; do
  [ -x "$d/initdb" ] && bindir=$d
done
if [ -z "$bindir" ]; then
  echo "test-postgres: no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)" >&2
  exit 1
fi

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$cmd" in
start)
  mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown postgres: "$dir"
  again=""
  [ -f "$dir/data/PG_VERSION" ] && [ -f "$dir/port" ] && again=$(cat "$dir/port")
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    as_owner "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
  fi
  listen=${NMWS_PG_LISTEN:-127.0.0.1}
  if [ -n "${NMWS_PG_TRUST_NET:-}" ] && ! grep -q "^host all all ${NMWS_PG_TRUST_NET} " "$dir/data/pg_hba.conf"; then
    echo "host all all ${NMWS_PG_TRUST_NET} trust" | as_owner tee -a "$dir/data/pg_hba.conf" >/dev/null
  fi
  # A random free port; another process may take it between the probe and the start, so retry.
  started=""
  for attempt in 1 2 3 4 5; do
    port=${again:-$((20000 + RANDOM % 40000))}
    if [ -z "$again" ] && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then continue; fi
    # fsync stays on: the durability tests must see what a real server does.
    if as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=$listen -p $port -k $dir -c max_connections=200" start >&2; then
      started=1; break
    fi
  done
  [ -n "$started" ] || { echo "test-postgres: server did not start, see $dir/server.log" >&2; tail -20 "$dir/server.log" >&2; exit 1; }
  if [ -n "$again" ]; then
    echo "jdbc:postgresql://127.0.0.1:$port/nmws_test?user=nmws_test&password=nmws_test"
    exit 0
  fi
  echo "$port" | as_owner tee "$dir/port" >/dev/null
  as_owner "$bindir/psql" -h 127.0.0.1 -p "$port" -U postgres -v ON_ERROR_STOP=1 -q -d postgres \
    -c "CREATE ROLE nmws_test LOGIN PASSWORD 'nmws_test'" -c "CREATE DATABASE nmws_test OWNER nmws_test" >&2
  echo "jdbc:postgresql://127.0.0.1:$port/nmws_test?user=nmws_test&password=nmws_test"
  ;;
stop)
  as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true
  ;;
*)
  echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
