#!/usr/bin/env python3
"""Writes a large real-derived trace for the timeline benchmark: the ProfilerStep window of a real
trace (default: HTA's df_index_resolver, V100, 216k events, 5 steps) repeated until the output has at
least --min-events events. Copy k is shifted by k x the window's length (plus a 1 ms gap); its
correlation / External id / flow ids are offset so they stay unique, and its steps renumbered
(ProfilerStep#N -> N + k x steps). Metadata (M) and the top-level keys are written once.

  python3 bench/timeline/make_trace.py --out build/bench/timeline_2m.json [--min-events 2000000]
"""
import argparse
import gzip
import json
import math
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SRC = os.path.join(HERE, '..', '..', '..', 'shared', 'traces', 'hta__df_index_resolver.json.gz')
STEP = re.compile(r'^ProfilerStep#(\d+)$')


def load(path):
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt', encoding='utf-8') as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--src', default=DEFAULT_SRC)
    ap.add_argument('--out', required=True)
    ap.add_argument('--min-events', type=int, default=2_000_000)
    a = ap.parse_args()
    doc = load(a.src)
    events = doc['traceEvents'] if isinstance(doc, dict) else doc
    steps = [e for e in events if e.get('ph') == 'X' and STEP.match(str(e.get('name', '')))]
    if not steps:
        raise SystemExit(f'{a.src}: no ProfilerStep slices')
    lo = min(float(e['ts']) for e in steps)
    hi = max(float(e['ts']) + float(e.get('dur', 0)) for e in steps)
    period = hi - lo + 1000.0  # µs: the window and a 1 ms gap
    meta = [e for e in events if e.get('ph') == 'M']
    body = [e for e in events if e.get('ph') != 'M' and 'ts' in e and lo <= float(e['ts']) < hi]
    copies = max(1, math.ceil(a.min_events / len(body)))
    numbers = [int(STEP.match(e['name']).group(1)) for e in steps]
    step_span = max(numbers) - min(numbers) + 1

    def max_id(key):
        m = 0
        for e in body:
            v = (e.get('args') or {}).get(key)
            if isinstance(v, int):
                m = max(m, v)
        return m + 1

    corr_span = max_id('correlation')
    ext_span = max_id('External id')
    flow_span = max((e['id'] for e in body if isinstance(e.get('id'), int)), default=0) + 1
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    n = len(meta)
    with open(a.out, 'w', encoding='utf-8') as out:
        out.write('{"traceEvents":[\n')
        out.write(',\n'.join(json.dumps(e, separators=(',', ':')) for e in meta))
        for k in range(copies):
            shift = k * period
            lines = []
            for e in body:
                c = dict(e)
                ts = float(e['ts']) + shift
                c['ts'] = int(ts) if isinstance(e['ts'], int) and shift == int(shift) else round(ts, 3)
                if k:
                    m = STEP.match(str(e.get('name', '')))
                    if m and e.get('ph') == 'X':
                        c['name'] = f'ProfilerStep#{int(m.group(1)) + k * step_span}'
                    if isinstance(e.get('id'), int):
                        c['id'] = e['id'] + k * flow_span
                    args = e.get('args')
                    if isinstance(args, dict):
                        args = dict(args)
                        if isinstance(args.get('correlation'), int):
                            args['correlation'] += k * corr_span
                        if isinstance(args.get('External id'), int):
                            args['External id'] += k * ext_span
                        c['args'] = args
                lines.append(json.dumps(c, separators=(',', ':')))
            out.write(',\n' + ',\n'.join(lines))
            n += len(lines)
        out.write('\n]')
        if isinstance(doc, dict):
            for key, value in doc.items():
                if key != 'traceEvents':
                    out.write(',' + json.dumps(key) + ':' + json.dumps(value))
        out.write('}\n')
    print(f'{a.out}: {n} events ({copies} copies of {len(body)} events from {os.path.basename(a.src)}, '
          f'{len(steps)} steps each), {os.path.getsize(a.out) / 1e6:.0f} MB')


if __name__ == '__main__':
    main()
