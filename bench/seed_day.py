#!/usr/bin/env python3
"""Makes the archive hold one day of round-trip summaries for bench/transports.sh: copies the
newest stored observation 1439 times, one a minute back over the last day (summaries only,
no frames), through SQLite directly, whatever columns the current migrations have.
usage: seed_day.py SQLITE_FILE"""
import sqlite3, sys

db = sqlite3.connect(sys.argv[1], timeout=30)
cols = [r[1] for r in db.execute("PRAGMA table_info(observation)") if r[1] != "id"]
src_id, start, end = db.execute("SELECT id, start_ns, end_ns FROM observation ORDER BY id DESC LIMIT 1").fetchone()
# result_key is unique (V9): a copy is another result, so it gets none
select = ", ".join("start_ns - ?" if c == "start_ns" else "end_ns - ?" if c == "end_ns"
                   else "NULL" if c == "result_key" else c for c in cols)
with db:
    for i in range(1, 1440):
        shift = i * 60 * 1_000_000_000
        db.execute(f"INSERT INTO observation ({', '.join(cols)}) SELECT {select} FROM observation WHERE id = ?",
                   (shift, shift, src_id))
print(db.execute("SELECT COUNT(*) FROM observation").fetchone()[0], "observations")
