#!/usr/bin/env python3
"""Whether two JSON reports say the same, apart from where their events sit in the file: the ids
an export's events are found by (table and row) and the rows named in diagnostics. For exports
whose rows were shuffled (tests/nsys/make_exports.py shuffle_rows). Prints the first differences.
KEYS (comma-separated) are left out too: what two layouts of one run may differ in (the file's
name and size, the versions it records).
  python3 tests/nsys/same_report.py A.json B.json [KEYS]"""
import difflib
import json
import re
import sys

# The event's place: its id (table and row), its first row, its index in the model (slices are
# numbered by track, and tracks in the order their first row came).
ROW_KEYS = ('byte_offset', 'event_id', 'first_offset', 'first_row', 'slice')
ROW_KEYS += tuple(k for k in (sys.argv[3] if len(sys.argv) > 3 else '').split(',') if k)


def normal(x):
    if isinstance(x, dict):
        return {k: normal(v) for k, v in x.items() if k not in ROW_KEYS}
    if isinstance(x, list):
        return [normal(v) for v in x]
    if isinstance(x, str):
        return re.sub(r'row \d+', 'row N', x)
    return x


a, b = (json.dumps(normal(json.load(open(f))), indent=1, sort_keys=True).splitlines()
        for f in sys.argv[1:3])
if a != b:
    print('\n'.join(list(difflib.unified_diff(a, b, lineterm='', n=1))[:30]))
    sys.exit(1)
