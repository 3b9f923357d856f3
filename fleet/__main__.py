"""python3 -m fleet TRACES_OR_DIRS... --scheduler local:N|tcp://HOST:8786 -o fleet.json
python3 -m fleet --report fleet.json [--format text|md]

See docs/fleet.md. Exit status: 0 written (files that failed are listed in fleet.json and
counted on standard error); 1 no file could be read; 2 usage error.
"""

import argparse
import json
import os
import sys

from . import graph, reduce, write


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python3 -m fleet",
        description="Many ranks of one job, digested on Dask workers and merged into fleet.json "
                    "(kinetoscope.fleet/1; docs/fleet.md).")
    ap.add_argument("inputs", nargs="*", help="trace files, digests (*.digest.json) or folders")
    ap.add_argument("--scheduler", default="local:2",
                    help="local:N (a LocalCluster of N processes) or a scheduler address, "
                         "tcp://HOST:8786 (default local:2)")
    ap.add_argument("-o", "--output", default="fleet.json", help="where fleet.json goes")
    ap.add_argument("--limit-memory", help="per worker (4GB, 512MiB): the LocalCluster's "
                    "memory_limit, and the address-space limit of each digest process")
    ap.add_argument("--kinetoscope", help="the native CLI on the workers (default: "
                    "build/native/kinetoscope beside this package, else kinetoscope on PATH)")
    ap.add_argument("--drop-last-step", action="store_true", help="HTA's convention")
    ap.add_argument("--batch-mb", type=float, default=16,
                    help="group files smaller than this into one task up to this many MB "
                         "(default 16; 0: one task per file)")
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--report", metavar="FLEET_JSON", help="print a fleet.json as text or Markdown")
    ap.add_argument("--format", choices=("text", "md"), default="text")
    a = ap.parse_args(argv)

    if a.report:
        try:
            with open(a.report, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print("fleet: %s: %s" % (a.report, e), file=sys.stderr)
            return 1
        if doc.get("schema") != reduce.FLEET_SCHEMA:
            print("fleet: %s: not a %s file" % (a.report, reduce.FLEET_SCHEMA), file=sys.stderr)
            return 1
        sys.stdout.write(write.markdown(doc) if a.format == "md" else write.text(doc))
        return 0

    if not a.inputs:
        ap.error("no trace file or folder given")
    paths = graph.expand(a.inputs)
    if not paths:
        ap.error("no *.json / *.json.gz file in %s" % " ".join(a.inputs))
    try:
        limit = graph.parse_bytes(a.limit_memory)
    except ValueError:
        ap.error("--limit-memory: a size such as 4GB or 512MiB")
    try:
        import distributed  # noqa: F401
    except ImportError:
        print("fleet: Dask's distributed is not importable by %s: install python3-distributed "
              "(scripts/setup.sh does) and run Debian's /usr/bin/python3 -m fleet" % sys.executable,
              file=sys.stderr)
        return 2
    r = reduce.Reducer()
    facts = graph.run(paths, r, scheduler=a.scheduler, exe=a.kinetoscope, limit_bytes=limit,
                      drop_last_step=a.drop_last_step, progress=not a.no_progress,
                      batch_bytes=int(a.batch_mb * 1e6))
    doc = reduce.finish(r.result(inputs=len(paths)))
    doc["run"] = facts
    # The output's folder is made if missing: a run of minutes must not end on a missing folder.
    os.makedirs(os.path.dirname(os.path.abspath(a.output)), exist_ok=True)
    tmp = a.output + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    os.replace(tmp, a.output)
    print("fleet: %d ranks read, %d failed, %d findings -> %s (%.1f s, %s files/s)" % (
        doc["ranks_read"], len(doc["failed"]), len(doc["findings"]), a.output,
        facts["seconds"], facts["files_per_second"]), file=sys.stderr)
    for e in doc["failed"][:10]:
        print("fleet: %s: %s" % (e["path"], e["error"]), file=sys.stderr)
    return 0 if doc["ranks_read"] else 1


if __name__ == "__main__":
    sys.exit(main())
