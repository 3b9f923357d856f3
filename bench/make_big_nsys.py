#!/usr/bin/python3
"""A large Nsight Systems export for the benchmark: the real export (../shared/nsys, CloverLeaf on
an A100, Nsight Systems 2024.5) with its event rows repeated, each copy shifted in time past the
one before and with its own correlation ids (so every launch still finds its kernel), until the file
reaches the target size. Everything else (strings, processes, threads, devices) stays as it is:
the copies look like one longer run of the same program.

  /usr/bin/python3 bench/make_big_nsys.py [--mb 1024] [--out build/bench/nsys_1gb.sqlite]

Debian's /usr/bin/python3 (its sqlite3 module). Prints the rows and bytes written."""
import argparse
import os
import sqlite3
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REAL = os.path.join(ROOT, "..", "shared", "nsys", "perlmutter-cloverleaf-cuda.sqlite")
# The tables whose rows are events in time; every other table is left alone.
EVENT_TABLES = [
    "CUPTI_ACTIVITY_KIND_RUNTIME",
    "CUPTI_ACTIVITY_KIND_KERNEL",
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
    "CUPTI_ACTIVITY_KIND_MEMCPY",
    "CUPTI_ACTIVITY_KIND_MEMSET",
    "OSRT_API",
    "NVTX_EVENTS",
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=1024, help="target size in MiB")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench", "nsys_1gb.sqlite"))
    ap.add_argument("--src", default=REAL)
    a = ap.parse_args()
    target = a.mb << 20
    if os.path.exists(a.out) and os.path.getsize(a.out) >= target * 0.95:
        print(f"{a.out}: already {os.path.getsize(a.out) >> 20} MiB")
        return
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    tmp = a.out + ".tmp"
    if os.path.exists(tmp):
        os.remove(tmp)
    src = sqlite3.connect(f"file:{a.src}?mode=ro", uri=True)
    db = sqlite3.connect(tmp)
    src.backup(db)
    src.close()
    db.execute("PRAGMA journal_mode=OFF")
    db.execute("PRAGMA synchronous=OFF")
    have = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    tables = []
    for t in EVENT_TABLES:
        if t not in have:
            continue
        cols = [r[1] for r in db.execute(f'PRAGMA table_info("{t}")')]
        n = db.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]
        if n == 0 or "start" not in cols:
            continue
        # Rows in rowid order 1..n, so that "the first m copies" is a rowid range below.
        db.execute(f'CREATE TEMP TABLE orig AS SELECT * FROM "{t}" ORDER BY rowid')
        db.execute(f'DELETE FROM "{t}"')
        db.execute(f'INSERT INTO "{t}" SELECT * FROM orig')
        db.execute("DROP TABLE orig")
        tables.append((t, cols, n))
    spans = [db.execute(f'SELECT min(start), max(coalesce("end", start)) FROM "{t}"').fetchone() for t, _, _ in tables]
    lo = min(s[0] for s in spans)
    hi = max(s[1] for s in spans)
    span = hi - lo + 1_000_000  # each copy starts 1 ms after the previous one ends
    corr = 1 + max(
        db.execute(f'SELECT coalesce(max(correlationId), 0) FROM "{t}"').fetchone()[0]
        for t, cols, _ in tables
        if "correlationId" in cols
    )
    db.commit()
    copies = 1
    per_copy = sum(n for _, _, n in tables)
    while True:
        db.commit()
        size = os.path.getsize(tmp)
        if size >= target:
            break
        # Double while that stays below the target, then add just the copies still needed.
        per_copy_bytes = max(1, (size - os.path.getsize(a.src)) / max(1, copies - 1)) if copies > 1 else 400_000
        need = int((target - size) / per_copy_bytes) + 1
        m = max(1, min(copies, need))
        for t, cols, n in tables:
            sel = []
            for c in cols:
                if c in ("start", "end"):
                    sel.append(f'"{c}" + {copies * span}')
                elif c == "correlationId":
                    sel.append(f'"{c}" + {copies * corr}')
                else:
                    sel.append(f'"{c}"')
            db.execute(
                f'INSERT INTO "{t}" ({", ".join(chr(34) + c + chr(34) for c in cols)}) '
                f'SELECT {", ".join(sel)} FROM "{t}" WHERE rowid <= {m * n}'
            )
        copies += m
        print(f"  {copies} copies, {os.path.getsize(tmp) >> 20} MiB", file=sys.stderr)
    db.commit()
    db.close()
    os.replace(tmp, a.out)
    print(f"{a.out}: {os.path.getsize(a.out)} bytes, {copies} copies of {per_copy} event rows = {copies * per_copy} rows")


if __name__ == "__main__":
    main()
