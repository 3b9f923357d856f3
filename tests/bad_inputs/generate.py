#!/usr/bin/env python3
"""The bad-input catalogue: files users really feed a trace analyzer, each with the exact message
they should see (catalogue.json beside this script holds the expected CLI output; docs/hardening.md
has the table).

  generate.py --small     rewrites the small files committed in tests/bad_inputs/ (deterministic)
  generate.py --big DIR   writes the big ones into DIR (a build folder, never the repository):
                          deep nesting, a 10 MB string, an event above the size cap, 10 million events,
                          1,000 distinct kernel names of 64 KiB, 50,000 distinct phases and
                          categories of 1 KiB
"""
import gzip
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def ev(ph, name, ts, **kw):
    e = {"ph": ph, "name": name, "pid": 1, "tid": 1, "ts": ts}
    e.update(kw)
    return e


def trace(events):
    return json.dumps({"traceEvents": events}, separators=(",", ":")).encode()


def small_trace(n=400):
    """A readable trace with kernels, for the gzip cases."""
    events = [ev("X", "ProfilerStep#1", 0, dur=n * 10, cat="user_annotation")]
    for i in range(n):
        events.append(ev("X", f"kernel_{i % 7}", 5 + i * 10, dur=4, cat="kernel", pid=0, tid=7,
                         args={"stream": 7, "device": 0, "correlation": i}))
    return trace(events)


def gz(data):
    return gzip.compress(data, compresslevel=6, mtime=0)


def small_files():
    files = {}
    files["empty.json"] = b""
    files["whitespace_only.json"] = b" \n\t\r\n  \n"
    files["not_json.txt"] = b"hello, this is not a trace\n"
    files["html_error_page.json"] = b"<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head></html>\n"
    files["json_not_a_trace.json"] = json.dumps(
        {"rocprofiler-sdk-tool": [{"metadata": {"node": {"id": 0, "hostname": "gpu-node"}}}]}).encode()
    # torch.profiler's ExecutionTraceObserver (Chakra) writes this beside the Kineto trace.
    files["execution_trace.json"] = json.dumps(
        {"schema": "1.1.1-chakra.0.0.4", "pid": 7, "time": "2026-12-07 03:00:00", "start_ts": 100,
         "finish_ts": 900, "nodes": [{"id": 1, "name": "[pytorch|profiler|execution_trace|process]",
                                     "ctrl_deps": 0, "attrs": [{"name": "rf_id", "type": "uint64", "value": 0}]}]}
    ).encode()
    files["array_of_numbers.json"] = b"[1, 2, 3]\n"
    rnd = random.Random(9)
    files["binary_garbage.bin"] = b"\x89PNG\r\n\x1a\n" + bytes(rnd.randrange(256) for _ in range(4088))
    # The file an Nsight Systems user has first, and Nsight Compute's: known by name, told how to export.
    files["train_rank0.nsys-rep"] = bytes(rnd.randrange(256) for _ in range(2048))
    files["gemm.ncu-rep"] = bytes(rnd.randrange(256) for _ in range(2048))
    files["utf16.json"] = '{"traceEvents":[{"ph":"X","name":"k","ts":1,"dur":2,"pid":1,"tid":1}]}'.encode("utf-16")
    # PowerShell's Out-File -Encoding utf32 (byte order mark FF FE 00 00, which begins with UTF-16's).
    files["utf32.json"] = '{"traceEvents":[{"ph":"X","name":"k","ts":1,"dur":2,"pid":1,"tid":1}]}'.encode("utf-32-le")
    files["utf32.json"] = b"\xff\xfe\x00\x00" + files["utf32.json"]
    data = gz(small_trace())
    # gzip inside gzip: a .json.gz gzipped once more (a pipeline that compresses whatever it uploads).
    files["gzip_twice.json.gz"] = gz(data)
    broken = bytearray(data)
    for i in range(len(broken) // 2, len(broken) // 2 + 16):
        broken[i] ^= 0x5A
    files["gzip_corrupt.json.gz"] = bytes(broken)
    files["gzip_truncated.json.gz"] = data[: len(data) // 2]
    # Zero padding after the gzip data (a block-sized copy, a preallocated file): zlib ignored it
    # without a word, the browser's DecompressionStream refused the file.
    files["gzip_trailing_zeros.json.gz"] = data + bytes(1024)
    # A file written in two gzip members (gzip -c part >> trace.json.gz; cat a.gz b.gz): one trace.
    plain = small_trace()
    cut = plain.index(b'{"ph"', len(plain) // 2)
    files["gzip_two_members.json.gz"] = gz(plain[:cut]) + gz(plain[cut:])
    files["invalid_utf8.json"] = (
        b'{"traceEvents":[{"ph":"X","name":"bad \xff\xfe name","ts":1,"dur":2,"pid":1,"tid":1},'
        b'{"ph":"X","name":"overlong \xc0\xaf","ts":5,"dur":2,"pid":1,"tid":1},'
        b'{"ph":"X","name":"fine","ts":9,"dur":2,"pid":1,"tid":1}]}')
    files["control_chars.json"] = (
        b'{"traceEvents":[{"ph":"X","name":"red \x1b[31mALERT\x1b[0m\x07","ts":1,"dur":2,"pid":1,"tid":1}]}')
    files["nan_infinity.json"] = (
        b'{"traceEvents":[{"ph":"X","name":"nan_ts","ts":NaN,"dur":2,"pid":1,"tid":1},'
        b'{"ph":"X","name":"inf_dur","ts":1,"dur":Infinity,"pid":1,"tid":1},'
        b'{"ph":"X","name":"string_nan","ts":"NaN","dur":2,"pid":1,"tid":1},'
        b'{"ph":"X","name":"fine","ts":3,"dur":2,"pid":1,"tid":1}]}')
    files["negative_duration.json"] = trace([
        ev("X", "fine", 1, dur=2), ev("X", "negative", 10, dur=-5), ev("X", "fine_too", 20, dur=2)])
    files["huge_values.json"] = (
        b'{"traceEvents":[{"ph":"X","name":"huge_dur","ts":1,"dur":1e30,"pid":1,"tid":1},'
        b'{"ph":"X","name":"huge_ts","ts":1e300,"dur":1,"pid":1,"tid":1},'
        b'{"ph":"X","name":"int_overflow","ts":99999999999999999999999,"dur":1,"pid":1,"tid":1},'
        b'{"ph":"X","name":"fine","ts":3,"dur":2,"pid":1,"tid":1}]}')
    files["unmatched_begin_end.json"] = trace([
        ev("E", "", 1), ev("B", "opened", 5), ev("X", "inside", 6, dur=1), ev("B", "never_closed", 10),
        ev("E", "", 12)])
    files["flows_without_ends.json"] = trace([
        ev("X", "op", 1, dur=10), ev("s", "flow", 2, id=1, cat="ac2g"),
        ev("f", "flow", 3, id=2, cat="ac2g", bp="e")])
    files["duplicate_metadata.json"] = trace([
        {"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "first"}},
        {"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "second"}},
        {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "t1"}},
        {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "t1 again"}},
        ev("X", "op", 1, dur=1)])
    files["timestamps_out_of_order.json"] = trace([
        ev("X", "third", 30, dur=1), ev("X", "first", 10, dur=1), ev("X", "second", 20, dur=1)])
    # A kernel 35 days after the rest (a corrupt CUPTI time): left out, not a 35-day trace.
    files["stray_timestamp.json"] = trace([
        ev("X", "ProfilerStep#1", 0, dur=100, cat="user_annotation"),
        *[ev("X", f"kernel_{i}", 5 + i * 10, dur=4, cat="kernel", pid=0, tid=7, args={"stream": 7, "device": 0})
          for i in range(9)],
        ev("X", "kernel_late", 35 * 86400 * 10**6, dur=4, cat="kernel", pid=0, tid=7, args={"stream": 7, "device": 0})])
    # The GPU's times in another clock, 50 years before the CPU's (an old tracer's relative GPU
    # times): too many to leave out, so kept, and time_groups says the report spans the gap.
    files["clock_groups.json"] = trace([
        *[ev("X", "aten::mm", 1_600_000_000_000_000 + i * 10, dur=5) for i in range(5)],
        *[ev("X", f"kernel_{i}", 1_000_000 + i * 10, dur=4, cat="kernel", pid=0, tid=7, args={"stream": 7, "device": 0})
          for i in range(5)]])
    files["truncated_mid_event.json"] = trace([ev("X", "kept", 1, dur=2), ev("X", "cut", 5, dur=2)])[:-30]
    files["stray_brace.json"] = b'{"traceEvents":[{"ph":"X","name":"kept","ts":1,"dur":2,"pid":1,"tid":1}}'
    files["malformed_event.json"] = (
        b'{"traceEvents":[{"ph":"X","name":"kept","ts":1,"dur":2,"pid":1,"tid":1},'
        b'{"ph":"X","name":"broken" "ts":3},'
        b'{"ph":"X","name":"kept_too","ts":5,"dur":2,"pid":1,"tid":1}]}')
    # ProfilerSteps nested in or overlapping another (a merged or hand-written file): the steps that
    # follow one another are kept, and the report says how many markers it left out.
    steps = []
    for i in range(4):
        steps += [ev("X", f"ProfilerStep#{i}", i * 1000, dur=900, cat="user_annotation"),
                  ev("X", f"kernel_{i}", i * 1000 + 20, dur=500, cat="kernel", pid=0, tid=7,
                     args={"stream": 7, "device": 0})]
    steps += [ev("X", "ProfilerStep#100", 1100, dur=300, cat="user_annotation"),
              ev("X", "ProfilerStep#101", 1500, dur=900, cat="user_annotation")]
    files["nested_profiler_steps.json"] = trace(steps)
    # A name or category written as an object or array (a converter that put an op's record where
    # its name belongs): read as '{' or '[' before, so every such event had one name and nothing
    # said so. Now its JSON text, cut to 256 bytes, counted as name_not_string.
    files["name_object.json"] = trace([
        ev("X", {"op": "aten::mm", "shapes": [[2, 3], [3, 4]]}, 1, dur=2),
        ev("X", ["aten::add", 1], 5, dur=2, cat={"kind": "cpu_op"}),
        ev("X", "fine", 9, dur=2, cat="cpu_op")])
    return files


def deep_nesting(depth=100_000):
    return (b'{"traceEvents":[{"ph":"X","name":"deep","ts":1,"dur":2,"pid":1,"tid":1,"args":{"a":'
            + b"[" * depth + b"]" * depth + b'}},{"ph":"X","name":"after","ts":5,"dur":1,"pid":1,"tid":1}]}')


def string_10mb():
    return (b'{"traceEvents":[{"ph":"X","cat":"kernel","name":"' + b"x" * (10 << 20)
            + b'","ts":1,"dur":2,"pid":0,"tid":7,"args":{"stream":7,"device":0}},'
            + b'{"ph":"X","cat":"kernel","name":"small","ts":5,"dur":1,"pid":0,"tid":7,"args":{"stream":7,"device":0}}]}')


def event_over_cap(mb=65):
    return (b'{"traceEvents":[{"ph":"X","name":"kept","ts":1,"dur":2,"pid":1,"tid":1},'
            + b'{"ph":"X","name":"huge","ts":3,"dur":1,"pid":1,"tid":1,"args":{"blob":"' + b"y" * (mb << 20)
            + b'"}},{"ph":"X","name":"kept_too","ts":9,"dur":1,"pid":1,"tid":1}]}')


def kernel_names_64k(n=1000):
    """n kernels, each with a distinct name of 64 KiB (the kernel classes read every name)."""
    body = ("abcdefghijklmnopqrstuvwxyz" * 2600)[:65530].encode()
    events = [b'{"ph":"X","cat":"kernel","name":"k%04d_' % i + body
              + b'","pid":0,"tid":7,"ts":%d,"dur":5,"args":{"stream":7,"device":0}}' % (1000 + 10 * i)
              for i in range(n)]
    return b'{"traceEvents":[' + b",".join(events) + b"]}"


def distinct_phases_categories(n=50_000):
    """n events with a distinct 1 KiB phase each, and n complete events with a distinct 1 KiB
    category each: every distinct phase and category was a key of the JSON report (102 MB for
    100,000 phases)."""
    pad = "p" * 1010
    events = ['{"ph":"%s%06d","name":"odd","pid":1,"tid":1,"ts":%d}' % (pad, i, i) for i in range(n)]
    events += ['{"ph":"X","cat":"%s%06d","name":"op","pid":1,"tid":2,"ts":%d,"dur":1}' % (pad, i, 2 * i)
               for i in range(n)]
    return ('{"traceEvents":[' + ",".join(events) + "]}").encode()


def ten_million(path, n=10_000_000):
    """10 million tiny complete events on 4 threads, gzip (level 1), about 40 MB on disk."""
    block = 10_000
    with gzip.open(path, "wb", compresslevel=1) as f:
        f.write(b'{"traceEvents":[\n')
        for start in range(0, n, block):
            parts = []
            for i in range(start, min(n, start + block)):
                parts.append('{"ph":"X","name":"e%d","ts":%d,"dur":1,"pid":1,"tid":%d}' % (i % 16, i * 2, i % 4))
            f.write((",\n".join(parts) + (",\n" if start + block < n else "\n")).encode())
        f.write(b"]}\n")


def main():
    args = sys.argv[1:]
    if args[:1] == ["--small"]:
        for name, data in small_files().items():
            with open(os.path.join(HERE, name), "wb") as f:
                f.write(data)
        print(f"wrote {len(small_files())} files to {HERE}")
    elif args[:1] == ["--big"] and len(args) >= 2:
        out = args[1]
        os.makedirs(out, exist_ok=True)
        only = set(args[2:])
        makers = {"deep_nesting_100k.json": deep_nesting, "string_10mb.json": string_10mb,
                  "event_over_cap.json": event_over_cap, "kernel_names_64k.json": kernel_names_64k,
                  "distinct_phases_categories.json": distinct_phases_categories}
        for name, make in makers.items():
            path = os.path.join(out, name)
            if (not only or name in only) and not os.path.exists(path):
                with open(path, "wb") as f:
                    f.write(make())
        path = os.path.join(out, "events_10m.json.gz")
        if (not only or "events_10m.json.gz" in only) and not os.path.exists(path):
            ten_million(path + ".part")
            os.replace(path + ".part", path)
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
