"""What the corpus scripts (planted*.py, profiler_options.py, one_process_gpus.py, metamorphic.py)
share: the CLI's JSON report of some files, the failure list they print and count, and their
command line (--cli, -v; a visible skip when ../shared/traces is absent)."""
import argparse
import json
import os
import subprocess


def report(cli, paths):
    """The JSON report of paths (one file or several, as a rank set), read by the CLI."""
    paths = [paths] if isinstance(paths, str) else list(paths)
    p = subprocess.run([cli, "report", *paths, "--format", "json"], capture_output=True)
    if p.returncode != 0:
        raise RuntimeError("kinetoscope failed on %s: %s" % (" ".join(paths), p.stderr.decode()[:500]))
    return json.loads(p.stdout)


def finding_ids(rep):
    """The ids of a report's findings, in its order."""
    return [f["id"] for f in rep["findings"]]


class Checker:
    """Every check prints FAIL with its detail; -v prints the ones that passed too."""

    def __init__(self, verbose):
        self.failures = []
        self.verbose = verbose

    def check(self, what, ok, detail=""):
        if not ok:
            self.failures.append(what)
            print("FAIL %s %s" % (what, detail))
        elif self.verbose:
            print("ok   %s %s" % (what, detail))


def arguments(traces, extra=None):
    """The scripts' command line; None (after saying so) when the shared traces are absent."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default="build/native/kinetoscope")
    ap.add_argument("-v", action="store_true")
    if extra:
        extra(ap)
    args = ap.parse_args()
    if not os.path.isdir(traces):
        print("SKIP: %s is absent" % traces)
        return None
    return args


def start(traces, extra=None):
    """arguments(), and a Checker that prints as -v asks: (None, None) when the traces are absent."""
    args = arguments(traces, extra)
    return (args, Checker(args.v)) if args is not None else (None, None)
