#!/usr/bin/env python3
"""Builds the fuzzers' seed corpus at fuzz time (nothing here is committed: the traces stay in
../shared/traces). For every shared trace: the whole JSON when small, else its first 8 KB (a cut-off
trace) and a cut-down trace (top-level members, metadata and a few events of every phase and
category). Then every small file of the bad-input catalogue and every regression input.

  make_corpus.py OUT_DIR   -> OUT_DIR/import/* (raw JSON) and OUT_DIR/chunked/* (chunk-size header
                              + JSON, the layout tests/fuzz/fuzz_entry.h reads)
"""
import gzip
import hashlib
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRACES = os.path.join(ROOT, "..", "shared", "traces")
SMALL = 8 * 1024
# Chunk-size headers for the chunked fuzzer: byte 0 = count - 1, then the sizes (see fuzz_entry.h).
HEADERS = [bytes([0, 0]), bytes([0, 6]), bytes([2, 2, 62, 200]), bytes([3, 0, 1, 2, 199])]


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def shrink(value, depth=0):
    """Keeps a top-level member small: long strings cut, long lists cut, deep values dropped."""
    if isinstance(value, str):
        return value[:64]
    if isinstance(value, list):
        return [shrink(v, depth + 1) for v in value[:4]] if depth < 4 else []
    if isinstance(value, dict):
        return {k: shrink(v, depth + 1) for k, v in list(value.items())[:16]} if depth < 4 else {}
    return value


def cut_down(data):
    try:
        doc = json.loads(data)
    except ValueError:
        return None
    events = doc if isinstance(doc, list) else doc.get("traceEvents") if isinstance(doc, dict) else None
    if not isinstance(events, list):
        return None
    seen, keep = {}, []
    for ev in events:
        if not isinstance(ev, dict):
            continue
        key = (ev.get("ph"), ev.get("cat"), ev.get("name") if ev.get("ph") == "M" else None)
        if seen.get(key, 0) < 3:
            seen[key] = seen.get(key, 0) + 1
            keep.append(ev)
        if len(keep) >= 60:
            break
    if isinstance(doc, list):
        return json.dumps(keep, separators=(",", ":")).encode()
    top = {k: shrink(v) for k, v in doc.items() if k != "traceEvents"}
    top["traceEvents"] = keep
    return json.dumps(top, separators=(",", ":")).encode()


def main():
    out = sys.argv[1]
    seeds = []
    if os.path.isdir(TRACES):
        for name in sorted(os.listdir(TRACES)):
            if not name.endswith((".json", ".json.gz")) or name == "MANIFEST.json":
                continue
            data = read(os.path.join(TRACES, name))
            if len(data) <= SMALL:
                seeds.append(data)
                continue
            seeds.append(data[:SMALL])
            small = cut_down(data)
            if small:
                seeds.append(small[:4 * SMALL])
    else:
        print("make_corpus: ../shared/traces is absent: seeding from the catalogue only")
    for folder in ("tests/bad_inputs", "tests/fuzz/regressions"):
        path = os.path.join(ROOT, folder)
        if not os.path.isdir(path):
            continue
        for name in sorted(os.listdir(path)):
            full = os.path.join(path, name)
            # Gzip files are left out: the fuzzers take decompressed JSON.
            if os.path.isfile(full) and not name.endswith((".py", ".md", ".tsv", ".gz")):
                with open(full, "rb") as f:
                    seeds.append(f.read(64 * 1024))
    for sub in ("import", "chunked"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    for i, data in enumerate(seeds):
        digest = hashlib.sha1(data).hexdigest()[:16]
        with open(os.path.join(out, "import", digest), "wb") as f:
            f.write(data)
        header = HEADERS[i % len(HEADERS)]
        with open(os.path.join(out, "chunked", digest), "wb") as f:
            f.write(header + data)
    print(f"make_corpus: {len(seeds)} seeds in {out}/import and {out}/chunked")
    write_gzip_and_demangle_seeds(out)


# Kernel names as older Nsight Systems exports hold them (mangledName): a CUTLASS GEMM, a lambda
# in a template argument (the cloverleaf export's), a local lambda, a pack, an unnamed type.
MANGLED = [
    b"_ZN7cutlass6KernelI52cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4EEvNT_6ParamsE",
    b"_ZN6clover19par_ranged2d_kernelIZ11build_fieldR16global_variablesEUliiE0_EEvNS_7Range2dET_",
    b"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
    b"_ZZ4mainENKUlvE_clEv",
    b"_Z1fIJifEEvDpT_",
    b"_Z1fIN1aUt_EEvv",
    b"_Z1fDv4_f",
]


def write_gzip_and_demangle_seeds(out):
    """OUT/gzip: the catalogue's gzip files (a byte choosing the read size first, as
    gzip_fuzzer.cpp reads it); OUT/demangle: MANGLED."""
    os.makedirs(os.path.join(out, "gzip"), exist_ok=True)
    os.makedirs(os.path.join(out, "demangle"), exist_ok=True)
    path = os.path.join(ROOT, "tests", "bad_inputs")
    for name in sorted(os.listdir(path)):
        if name.endswith(".gz"):
            with open(os.path.join(path, name), "rb") as f:
                data = f.read(60 * 1024)
            with open(os.path.join(out, "gzip", name), "wb") as f:
                f.write(bytes([len(name) % 256]) + data)
    for i, name in enumerate(MANGLED):
        with open(os.path.join(out, "demangle", "name%d" % i), "wb") as f:
            f.write(name)


if __name__ == "__main__":
    main()
