#!/usr/bin/env python3
"""The schedules of one mesh point that have no stored result yet, one line each.

    mesh-pairs.py POINT [BASE_URL]     (BASE_URL default http://127.0.0.1:8080)

Prints "NAME (characteristic POINT -> dst): why" for every schedule of POINT none of whose runs
stored a result, the last ended run's status and reason saying why; prints nothing when every
pair has one. scripts/tutorial-mesh.sh waits on it; scripts/test-mesh-pairs.sh tests it.
"""
import json
import sys
import urllib.parse
import urllib.request

point = sys.argv[1]
base = (sys.argv[2] if len(sys.argv) > 2 else "http://127.0.0.1:8080").rstrip("/") + "/api/schedules"


def get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.load(r)


try:
    schedules = get(base)
except Exception as e:
    print(f"point {point}: its schedules cannot be read ({e})")
    sys.exit(0)
for s in schedules:
    if s.get("point") not in (None, point):
        continue
    name = s["name"]
    pair = f"{name} ({s.get('characteristic')} {point} -> {s.get('dst')})"
    try:
        runs = get(base + "/" + urllib.parse.quote(name, safe="") + "/runs")
    except Exception as e:
        print(f"{pair}: its runs cannot be read ({e})")
        continue
    if any(r.get("observationId") is not None for r in runs):
        continue
    ended = [r for r in runs if r.get("status") not in ("PLANNED", "RUNNING")]
    if not ended:
        print(f"{pair}: no run has ended yet ({len(runs)} planned or running)")
    else:
        last = max(ended, key=lambda r: str(r.get("planned")))
        print(f"{pair}: no result; last run {last.get('status')}: {last.get('reason') or 'no reason given'}")
