#!/usr/bin/env python3
"""How many of a mesh's planned runs started, read from every point's API (issue 24).

    mesh-report.py FROM TO NAME=URL...      (FROM, TO: ISO 8601 instants; runs planned in between count)

Each point's own schedules (GET /api/schedules, GET /api/schedules/{name}/runs): a run planned
in [FROM, TO) that is DONE or FAILED started; a NONSTARTER did not, and its reason is counted by
cause. Exclusive tests (achievable TCP throughput) from every point's archive
(GET /api/results) are checked for overlap on each host they touched (as source or
destination). Prints one summary and exits 1 when fewer than 99 % started or two exclusive
tests overlapped on one host.
"""
import collections
import json
import re
import sys
import urllib.parse
import urllib.request
from datetime import datetime


def get(url):
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.load(r)


def when(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def cause(reason):
    """A non-starter's cause from its reason, as the scheduler's metric names them."""
    r = reason or ""
    for key, pattern in (("noslot", r"^no slot at"), ("missed", r"^missed its slot"), ("backoff", r"^backing off"),
                         ("overlap", r"previous run was still running"), ("removed", r"disabled or removed"),
                         ("busy", r"busy|test runs on this host|another test to .* is running"), ("rate", r"rate|limit")):
        if re.search(pattern, r):
            return key
    return "other: " + r[:80]


frm, to = when(sys.argv[1]), when(sys.argv[2])
points = dict(a.split("=", 1) for a in sys.argv[3:])
total = started = 0
causes = collections.Counter()
examples = {}
exclusive = []  # (host, start, end, label)
addresses = {}
for name, url in points.items():
    for s in get(url + "/api/schedules"):
        if s.get("point") not in (None, name):
            continue
        addresses.setdefault(name, None)
        for r in get(url + "/api/schedules/" + urllib.parse.quote(s["name"], safe="") + "/runs?limit=1000"):
            if r["status"] in ("PLANNED", "RUNNING") or not (frm <= when(r["planned"]) < to):
                continue
            total += 1
            if r["status"] in ("DONE", "FAILED"):
                started += 1
            else:
                c = cause(r.get("reason"))
                causes[c] += 1
                examples.setdefault(c, s["name"] + ": " + (r.get("reason") or "no reason"))
    dsts = {s["dst"] for s in get(url + "/api/schedules") if s.get("point") in (None, name)}
    for dst in dsts:
        # TCP only: a one-way stream's observations answer achievable.UDP too, and they are normal-class
        for ch in ("path.bandwidth.achievable.TCP",):
            q = urllib.parse.urlencode({"dst": dst, "characteristic": ch, "limit": 1000})
            for o in get(url + "/api/results?" + q).get("results", []):
                if "start" in o and "end" in o and frm <= when(o["start"]) < to:
                    for host in (name, dst):
                        exclusive.append((host, when(o["start"]), when(o["end"]), f"{name}->{dst} {o['start']}"))
overlaps = []
by_host = collections.defaultdict(list)
for host, a, b, label in exclusive:
    by_host[host].append((a, b, label))
for host, tests in by_host.items():
    tests.sort()
    for (a1, b1, l1), (a2, b2, l2) in zip(tests, tests[1:]):
        if a2 < b1 and l1 != l2:
            overlaps.append(f"{host}: {l1} and {l2}")
pct = 100.0 * started / total if total else 0.0
print(f"planned runs {total}, started {started} ({pct:.2f} %), non-starters {total - started}")
for c, n in causes.most_common():
    print(f"  {n:5d} {c}   e.g. {examples[c]}")
print(f"exclusive tests {len(exclusive) // 2}, overlapping on one host: {len(overlaps)}")
for o in overlaps[:10]:
    print("  " + o)
sys.exit(0 if total and pct >= 99.0 and not overlaps else 1)
