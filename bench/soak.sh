#!/usr/bin/env bash
# The soak of issue 21: the tutorial's three-point mesh (scripts/tutorial-mesh.sh: namespaces
# a, b, c, the link to c at 50 Mbit/s with 1 UDP datagram in 200 dropped) at ten times the
# tutorial's rates for SOAK_MINUTES (60), sampling each service's and responder's RSS,
# threads and open files and each archive's size every SAMPLE_S (60) seconds; then counts,
# from each point's archive, the runs that ran and the results they kept: a run recorded DONE
# whose result is not in the archive is lost (must be 0), a result kept twice is doubled (0).
# Needs root and a build (./mvnw -DskipTests install). Outside the test run: an hour.
#
#   sudo bench/soak.sh                       # 60 minutes; prints a Markdown report
#   sudo SOAK_MINUTES=5 bench/soak.sh        # a short one
#
# Ten times the tutorial's rates: round trip (20 frames, 50 ms apart) and one-way delay every
# 3 s instead of 30 s between every ordered pair, achievable TCP every 6 s instead of 60 s
# from a to b and c. The one-way test sends 250 frames 10 ms apart (the tutorial's 500 would
# outlast its 3 s period).
set -euo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)
minutes=${SOAK_MINUTES:-60}
every=${SAMPLE_S:-60}
run="$top/run/tutorial"
out=${SOAK_OUT:-$top/run/soak}
mkdir -p "$out"
[ "$(id -u)" = 0 ] || { echo "needs root: it makes network namespaces" >&2; exit 1; }

cat >"$out/mesh.json" <<'EOF'
{
  "points": [
    {"name": "a", "url": "http://NET.1:8080", "address": "NET.1"},
    {"name": "b", "url": "http://NET.2:8080", "address": "NET.2"},
    {"name": "c", "url": "http://NET.3:8080", "address": "NET.3"}
  ],
  "groups": [
    {"name": "latency", "characteristic": "path.delay.roundTrip", "period": "PT3S", "slip": "PT1S",
     "parameters": {"count": "20", "interval": "0.05"}},
    {"name": "owd", "characteristic": "path.delay.oneWay", "period": "PT3S", "slip": "PT0.5S",
     "parameters": {"count": "250", "interval": "0.01", "packetSize": "1000"}},
    {"name": "throughput", "characteristic": "path.bandwidth.achievable.TCP", "period": "PT6S", "slip": "PT1S",
     "parameters": {"timeDuration": "3"}, "pairs": [["a", "b"], ["a", "c"]]}
  ]
}
EOF

trap 'scripts/tutorial-mesh.sh clean' EXIT
rm -rf "$run"/*.data # archives of an earlier soak would be counted in this one's report
KEEP=1 WAIT_S=0 SETTLE_S=60 SHOTS=0 MESH_JSON="$out/mesh.json" scripts/tutorial-mesh.sh || true
started=$(date -u +%FT%TZ)
echo "soak: mesh up at $started; sampling every ${every} s for ${minutes} min into $out/samples.csv" >&2

sample() { # one CSV line per process: time, name, rss_kb, threads, fds, archive_bytes
  local t=$1
  for h in a b c; do
    for what in service responder; do
      p=$(cat "$run/$h.$what.pid")
      if [ -d "/proc/$p" ]; then
        rss=$(awk '/^VmRSS/ {print $2}' "/proc/$p/status")
        thr=$(awk '/^Threads/ {print $2}' "/proc/$p/status")
        fds=$(ls "/proc/$p/fd" | wc -l)
      else
        rss=-1; thr=-1; fds=-1
      fi
      db=0
      [ "$what" = service ] && db=$(du -sb "$run/$h.data" | cut -f1)
      echo "$t,$h.$what,$rss,$thr,$fds,$db"
    done
  done
}
echo "elapsed_s,process,rss_kb,threads,fds,archive_bytes" >"$out/samples.csv"
t0=$SECONDS
while :; do
  sample $((SECONDS - t0)) >>"$out/samples.csv"
  [ $((SECONDS - t0)) -ge $((minutes * 60)) ] && break
  sleep "$every"
done

# Lost and doubled, from each archive (read beside the running service: WAL readers do not block it).
python3 - "$run" "$out/samples.csv" "$minutes" <<'PY'
import csv, os, sqlite3, sys, collections
run, samples, minutes = sys.argv[1], sys.argv[2], int(sys.argv[3])
print(f"## Soak: {minutes} min, the tutorial's mesh at ten times its rates\n")
print("| point | runs due | DONE | FAILED | non-starters | DONE without its result (lost) | a result for two runs | results held (spool) |")
print("|---|---|---|---|---|---|---|---|")
lost_total = 0
for h in "abc":
    db = sqlite3.connect(f"file:{run}/{h}.data/nmws.db?mode=ro", uri=True)
    q = lambda s: db.execute(s).fetchall()
    by = dict(q("SELECT status, COUNT(*) FROM scheduled_run WHERE status <> 'PLANNED' GROUP BY status"))
    lost = q("SELECT COUNT(*) FROM scheduled_run r WHERE r.status = 'DONE' AND (r.observation_id IS NULL OR NOT EXISTS "
             "(SELECT 1 FROM observation o WHERE o.id = r.observation_id))")[0][0]
    # a result kept for two runs, or two results of one run's key (the unique index says none can be)
    twice = q("SELECT COUNT(*) FROM (SELECT observation_id FROM scheduled_run WHERE observation_id IS NOT NULL "
              "GROUP BY observation_id HAVING COUNT(*) > 1)")[0][0]
    held = len([f for f in os.listdir(f"{run}/{h}.data/spool")]) if os.path.isdir(f"{run}/{h}.data/spool") else 0
    lost_total += lost + twice
    print(f"| {h} | {sum(by.values())} | {by.get('DONE', 0)} | {by.get('FAILED', 0)} | {by.get('NONSTARTER', 0)} | {lost} | {twice} | {held} |")
rows = collections.defaultdict(list)
for r in csv.DictReader(open(samples)):
    rows[r["process"]].append(r)
print("\n| process | RSS MB first / max / last | threads first / max / last | open files first / max / last | archive MB first / last |")
print("|---|---|---|---|---|")
for p, rs in sorted(rows.items()):
    def col(k, scale=1):
        v = [int(r[k]) for r in rs]
        return v[0] / scale, max(v) / scale, v[-1] / scale
    rss, thr, fds, db = col("rss_kb", 1024), col("threads"), col("fds"), col("archive_bytes", 1e6)
    print(f"| {p} | {rss[0]:.0f} / {rss[1]:.0f} / {rss[2]:.0f} | {thr[0]:.0f} / {thr[1]:.0f} / {thr[2]:.0f} | "
          f"{fds[0]:.0f} / {fds[1]:.0f} / {fds[2]:.0f} | " + (f"{db[0]:.1f} / {db[2]:.1f} |" if p.endswith("service") else "- |"))
sys.exit(1 if lost_total else 0)
PY
