#!/usr/bin/env bash
# Installs the Debian package the build made (packaging/target/nmws_*.deb) with apt, checks
# /etc/nmws/nmws.env reads the same in a shell as in systemd, starts the responder and the
# service from the installed layout (with systemd when it runs the machine; otherwise with the
# packaged /usr/share/nmws/start-without-systemd, which the install message and the CLI name),
# runs one real round-trip test through the installed CLI, checks the result reached the
# archive and the metrics, and removes the package. Needs root.
set -euo pipefail
cd "$(dirname "$0")/.."

[ "$(id -u)" = 0 ] || { echo "test-package.sh: needs root (apt-get install)" >&2; exit 2; }
deb=$(ls packaging/target/nmws_*_amd64.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { echo "test-package.sh: no packaging/target/nmws_*.deb: run ./mvnw install first" >&2; exit 2; }

# Never over an operator's installation: this script purges what it installs.
if dpkg -s nmws >/dev/null 2>&1; then echo "test-package.sh: nmws is installed here; not touching it" >&2; exit 2; fi
had_user=false; getent passwd nmws >/dev/null && had_user=true
had_state=false; [ -e /var/lib/nmws ] && had_state=true
had_logs=false; [ -e /var/log/nmws ] && had_logs=true

units=/lib/systemd/system
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(free_port)
rport=$(free_port)
pids=()
systemd=false
[ -d /run/systemd/system ] && systemd=true

cleanup() {
  if $systemd; then systemctl stop nmws.service nmprobe-responder.service 2>/dev/null || true; fi
  [ -x /usr/share/nmws/start-without-systemd ] && ! $systemd && /usr/share/nmws/start-without-systemd stop >/dev/null 2>&1 || true
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do while kill -0 "$p" 2>/dev/null; do sleep 0.1; done; done
  DEBIAN_FRONTEND=noninteractive apt-get purge -y -q nmws >/dev/null 2>&1 || true
  # what the package keeps on purge (the archive, the user), removed when this run made them
  $had_state || rm -rf /var/lib/nmws
  $had_logs || rm -rf /var/log/nmws
  rm -rf /run/nmws
  $had_user || deluser --quiet --system nmws >/dev/null 2>&1 || true
}
trap cleanup EXIT

echo "installing $deb" >&2
installed=$(DEBIAN_FRONTEND=noninteractive apt-get install -y -q "./$deb" 2>&1) || { echo "$installed" >&2; exit 1; }
if ! $systemd; then
  # nothing started without systemd: the install says how to start it (issue 26)
  grep -q "Start them (as root) with:   /usr/share/nmws/start-without-systemd" <<<"$installed" \
    || { echo "the install did not say how to start without systemd:" >&2; echo "$installed" >&2; exit 1; }
fi

# What the package put in place.
getent passwd nmws >/dev/null || { echo "postinst made no nmws user" >&2; exit 1; }
for f in /usr/share/nmws/nmws-service.jar /usr/share/nmws/nmws-client.jar /usr/lib/nmws/libnmprobe_jni.so \
         /usr/share/nmws/start-without-systemd \
         /usr/sbin/nmprobe-responder /usr/bin/nmprobe /usr/bin/nmws /etc/nmws/application.properties /etc/nmws/nmws.env \
         $units/nmws.service $units/nmprobe-responder.service; do
  [ -e "$f" ] || { echo "missing after install: $f" >&2; exit 1; }
done
[ "$(stat -c %U:%G:%a /var/lib/nmws)" = nmws:nmws:750 ] || { echo "/var/lib/nmws: $(stat -c %U:%G:%a /var/lib/nmws)" >&2; exit 1; }
[ "$(stat -c %G:%a /etc/nmws/application.properties)" = nmws:640 ] || { echo "settings not 640 root:nmws" >&2; exit 1; }
# systemd's own check of the installed units (directives, paths, users)
if command -v systemd-analyze >/dev/null; then
  systemd-analyze verify $units/nmws.service $units/nmprobe-responder.service
fi
/usr/bin/nmprobe clock >/dev/null   # the installed probe runs (its libraries resolve)

# The env file is valid for a POSIX shell and for systemd alike (issue 26: "RESPONDER_OPTS=-p
# 8700" ran 8700 when sourced): sourced by dash and bash it runs nothing and prints nothing, and
# every variable reads the same as systemd's EnvironmentFile rules read it (NAME=value, the
# value's surrounding double quotes removed).
env_check() { # env_check FILE: fails with the difference
  local f=$1 sh out
  for sh in sh bash; do
    out=$(env -i "$sh" -c 'set -eu; . "$1"; printf "%s\n" "RESPONDER_OPTS=$RESPONDER_OPTS" "JAVA_OPTS=$JAVA_OPTS" "NMWS_PORT=$NMWS_PORT"' \
      "$sh" "$f" 2>&1) || { echo "$sh cannot source $f: $out" >&2; return 1; }
    [ "$out" = "$(python3 - "$f" <<'PY'
import re, sys
seen = {}
for line in open(sys.argv[1]):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    name, value = line.split("=", 1)
    m = re.fullmatch(r'"([^"$`\\]*)"', value)
    seen[name] = m.group(1) if m else value
for n in ("RESPONDER_OPTS", "JAVA_OPTS", "NMWS_PORT"):
    print(f"{n}={seen[n]}")
PY
)" ] || { echo "$sh reads $f otherwise than systemd: $out" >&2; return 1; }
  done
}
env_check /etc/nmws/nmws.env
[ "$(env -i sh -c '. /etc/nmws/nmws.env; echo "$RESPONDER_OPTS|$JAVA_OPTS|$NMWS_PORT"')" = "-p 8700|-Xmx512m|8080" ] \
  || { echo "the shipped nmws.env does not hold the documented defaults" >&2; exit 1; }

# This run's ports, so it meets no other service or responder on this machine.
sed -i -e "s/^RESPONDER_OPTS=.*/RESPONDER_OPTS=\"-b 127.0.0.1 -p $rport\"/" -e "s/^NMWS_PORT=.*/NMWS_PORT=\"$port\"/" /etc/nmws/nmws.env
env_check /etc/nmws/nmws.env
echo "nmws.responder-port=$rport" >>/etc/nmws/application.properties

# Before anything runs, the CLI says how to start the service on this host (issue 26).
if down=$(/usr/bin/nmws --url "http://127.0.0.1:$port" echo 2>&1); then echo "echo answered before the start: $down" >&2; exit 1; fi
if $systemd; then hint="systemctl start nmprobe-responder nmws"; else hint="/usr/share/nmws/start-without-systemd"; fi
grep -qF "$hint" <<<"$down" || { echo "the CLI did not say how to start the service: $down" >&2; exit 1; }

logs=$(mktemp -d /tmp/nmws-package.XXXXXX)
if $systemd; then
  systemctl daemon-reload
  systemctl restart nmprobe-responder.service nmws.service
else
  # the documented way without systemd: each unit's ExecStart, Environment, User and capabilities
  /usr/share/nmws/start-without-systemd start
  pids=("$(cat /run/nmws/nmprobe-responder.pid)" "$(cat /run/nmws/nmws.pid)")
  ln -sf /var/log/nmws/nmprobe-responder.log "$logs/responder.log"
  ln -sf /var/log/nmws/nmws.log "$logs/service.log"
  # the responder got the options of the env file, split into words as systemd splits them
  tr '\0' ' ' </proc/"${pids[0]}"/cmdline | grep -qx "/usr/sbin/nmprobe-responder -b 127.0.0.1 -p $rport " \
    || { echo "responder started as: $(tr '\0' ' ' </proc/"${pids[0]}"/cmdline)" >&2; exit 1; }
fi

url=http://127.0.0.1:$port
for _ in $(seq 1 240); do
  curl -fsS "$url/actuator/health" >/dev/null 2>&1 && break
  if ! $systemd && ! kill -0 "${pids[1]}" 2>/dev/null; then echo "the installed service stopped:" >&2; tail -30 "$logs/service.log" >&2; exit 1; fi
  sleep 0.25
done
curl -fsS "$url/actuator/health" >/dev/null || { echo "the installed service did not answer:" >&2; tail -30 "$logs/service.log" >&2; exit 1; }
if ! $systemd; then
  # as the unit says (setpriv execs the ExecStart, so the pid is the JVM's)
  for p in "${pids[@]}"; do
    [ "$(ps -o user= -p "$p" | tr -d ' ')" = nmws ] || { echo "pid $p not running as nmws: $(ps -o user=,args= -p "$p")" >&2; exit 1; }
  done
  /usr/share/nmws/start-without-systemd status >/dev/null || { /usr/share/nmws/start-without-systemd status >&2; exit 1; }
  [ "$(/usr/share/nmws/start-without-systemd start)" = "nmprobe-responder: already running (pid ${pids[0]})
nmws: already running (pid ${pids[1]})" ] || { echo "a second start did not see the first" >&2; exit 1; }
fi

echo "a round trip through the installed CLI" >&2
out=$(/usr/bin/nmws --url "$url" --json rtt 127.0.0.1 --port "$rport" --count 10 --interval 0.005)
python3 -c 'import json,sys; f=json.load(sys.stdin)["results"][0]["figures"]; assert f["sent"]==10 and f["received"]==10, f' <<<"$out" \
  || { echo "unexpected answer: $out" >&2; exit 1; }
# kept in the archive under /var/lib/nmws and counted by the metrics
stored=$(curl -fsS "$url/api/results?dst=127.0.0.1")
python3 -c 'import json,sys; r=json.load(sys.stdin); assert r["count"]==1 and r["results"][0]["summary"]["sent"]==10, r' <<<"$stored"
[ -s /var/lib/nmws/nmws.db ] || { echo "no archive in /var/lib/nmws" >&2; exit 1; }
# read whole before matching: grep -q stops at the match, and under pipefail curl's failed
# write into the closed pipe would fail the check that had just passed
metrics=$(curl -fsS "$url/actuator/prometheus")
grep -q '^nmws_tests_total{characteristic="path.delay.roundTrip",outcome="ok",test="round_trip"} 1.0' <<<"$metrics" \
  || { echo "the test is not in the metrics" >&2; exit 1; }

if ! $systemd; then
  # removing the package stops what start-without-systemd started (issue 26: they outlived it)
  DEBIAN_FRONTEND=noninteractive apt-get remove -y -q nmws >/dev/null 2>&1 || { echo "apt-get remove failed" >&2; exit 1; }
  for p in "${pids[@]}"; do
    for _ in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$p" 2>/dev/null; then echo "pid $p outlived the package's removal: $(ps -o args= -p "$p")" >&2; exit 1; fi
  done
fi
cleanup
trap - EXIT
rm -rf "$logs"
for f in /usr/bin/nmws /usr/sbin/nmprobe-responder $units/nmws.service /etc/nmws/nmws.env; do
  [ ! -e "$f" ] || { echo "left after purge: $f" >&2; exit 1; }
done
echo "package: installed, ran a round trip from its layout, removed" >&2
