#!/usr/bin/env python3
"""An Nsight Systems export's times in the report are Nsight Systems' own: counted from the
session start, so each finding's event is at the `start` its row holds in the export (what the
GUI's ruler and `nsys stats` show). And NVTX ranges opened before the capture (negative times)
move nothing: precapture_nvtx.sqlite's steps start where training_steps.sqlite's do.

  python3 tests/nsys/time_zero.py CLI EXPORT_DIR [MORE_EXPORTS...]
Prints one line per failure and a summary; exits 1 on any failure."""
import json
import os
import sqlite3
import subprocess
import sys

# The table code in an event id's top byte (src/model/export_row.h).
TABLES = {1: 'CUPTI_ACTIVITY_KIND_RUNTIME', 2: 'CUPTI_ACTIVITY_KIND_KERNEL',
          3: 'CUPTI_ACTIVITY_KIND_MEMCPY', 4: 'CUPTI_ACTIVITY_KIND_MEMSET',
          5: 'CUPTI_ACTIVITY_KIND_SYNCHRONIZATION', 6: 'NVTX_EVENTS', 7: 'OSRT_API'}

failures = []


def report(cli, path):
    out = subprocess.run([cli, 'report', '--format', 'json', path], capture_output=True, text=True)
    if out.returncode != 0:
        failures.append('%s: exit %d: %s' % (path, out.returncode, out.stderr.strip()[:200]))
        return None
    return json.loads(out.stdout)


def row_start(db, event_id):
    """The row's start (ns): the importer numbers rows 1.. in a plain SELECT's order."""
    table = TABLES.get(event_id >> 56)
    if table is None:
        return None
    row = event_id & ((1 << 56) - 1)
    got = db.execute('SELECT start FROM "%s" LIMIT 1 OFFSET ?' % table, (row - 1,)).fetchone()
    return got and got[0]


def check_events(cli, path):
    """Each finding's events: ts_us is the row's own start. Returns how many were compared."""
    r = report(cli, path)
    if r is None:
        return 0
    if r['trace'].get('time_zero') != 'session_start':
        failures.append('%s: time_zero %r, not session_start' % (path, r['trace'].get('time_zero')))
    db = sqlite3.connect('file:%s?mode=ro' % path, uri=True)
    compared = 0
    for f in r.get('findings', []):
        for e in f.get('events', []):
            eid = int(e['event_id']) if 'event_id' in e else None
            start = row_start(db, eid) if eid is not None else None
            if start is None:
                continue
            compared += 1
            if round(e['ts_us'] * 1000) != start:
                failures.append('%s: %s (%s) at %.3f us; its row starts at %d ns' %
                                (os.path.basename(path), e['name'][:60], f['id'], e['ts_us'], start))
    return compared


def steps_of(r):
    return [(s['number'], s['start_us'], s['end_us']) for s in r['steps']['rows']]


def main():
    cli, exports = sys.argv[1], sys.argv[2]
    compared = 0
    paths = [os.path.join(exports, n) for n in ('training_steps.sqlite', 'data_stall.sqlite',
                                                 'host_stall.sqlite', 'alloc_churn.sqlite',
                                                 'precapture_nvtx.sqlite')] + sys.argv[3:]
    for path in paths:
        compared += check_events(cli, path)
    if compared < 10:
        failures.append('only %d events compared: the check saw too little' % compared)
    plain = report(cli, os.path.join(exports, 'training_steps.sqlite'))
    early = report(cli, os.path.join(exports, 'precapture_nvtx.sqlite'))
    if plain and early:
        if plain['trace']['first_event_us'] != 30000:  # the "setup" range at 30 ms
            failures.append('training_steps: first_event_us %r, not 30000' %
                            plain['trace']['first_event_us'])
        if early['trace']['first_event_us'] != -4000000:
            failures.append('precapture_nvtx: first_event_us %r, not -4000000' %
                            early['trace']['first_event_us'])
        if not steps_of(plain) or steps_of(plain) != steps_of(early):
            failures.append('precapture_nvtx: steps %s, not where training_steps has them: %s' %
                            (steps_of(early)[:2], steps_of(plain)[:2]))
        if [f['id'] for f in plain['findings']] != [f['id'] for f in early['findings']]:
            failures.append('precapture_nvtx: findings differ from training_steps')
    for f in failures:
        print('FAIL time zero: ' + f)
    print('nsys time zero: %d events at their rows\' own times, %d failures' % (compared, len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
