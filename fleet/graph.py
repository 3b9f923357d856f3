"""The Dask part: one task per trace file, run where the file can be read, results streamed back.

Each task runs the native CLI (`kinetoscope digest FILE... -o -`) in a child process on a Dask
worker and returns the digests' text (a few KB to a few hundred KB each) or the CLI's one-line
error per file. A file of 16 MB or more is a task alone; smaller ones are grouped up to 16 MB a
task, so a job of small ranks does not pay a process start and a round trip per file.
Nothing else leaves the worker: the trace is read, reduced and freed there. The client folds
each digest into the reducer as soon as it arrives (distributed.as_completed), so neither the
client nor the scheduler ever holds all digests. A file that is already a digest
(*.digest.json, from `kinetoscope digest -o DIR`) is read as it is.
"""

import os
import resource
import subprocess
import sys
import time

TRACE_SUFFIXES = (".json", ".json.gz", ".sqlite")
DIGEST_SUFFIX = ".digest.json"


def expand(inputs):
    """Files as given; folders stand for the trace files (and digests) under them, recursively
    (node folders), in path order. Absolute: the workers do not run in this directory."""
    out = []
    for p in map(os.path.abspath, inputs):
        if os.path.isdir(p):
            found = []
            for root, dirs, files in os.walk(p):
                dirs.sort()
                for f in files:
                    if f.endswith(TRACE_SUFFIXES):
                        found.append(os.path.join(root, f))
            out.extend(sorted(found))
        else:
            out.append(p)
    return out


def default_kinetoscope():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    built = os.path.join(here, "build", "native", "kinetoscope")
    return built if os.path.exists(built) else "kinetoscope"


def parse_bytes(text):
    """'4GB', '512MiB', '2e9' -> bytes (None for None/'0'/'auto')."""
    if text in (None, "", "0", "auto", "none"):
        return None
    t = text.strip().lower().replace(" ", "")
    units = {"kib": 2 ** 10, "mib": 2 ** 20, "gib": 2 ** 30, "tib": 2 ** 40,
             "kb": 10 ** 3, "mb": 10 ** 6, "gb": 10 ** 9, "tb": 10 ** 12, "b": 1}
    for u, m in units.items():
        if t.endswith(u):
            return int(float(t[: -len(u)]) * m)
    return int(float(t))


def digest_task(path, exe, limit_bytes=None, drop_last_step=False):
    """Runs on a worker. Returns (True, digest text) or (False, error line)."""
    if path.endswith(DIGEST_SUFFIX):
        try:
            with open(path, "r", encoding="utf-8") as f:
                return True, f.read()
        except OSError as e:
            return False, "cannot read %s: %s" % (path, e.strerror)
    cmd = [exe, "digest", path, "-o", "-"]
    if drop_last_step:
        cmd.append("--drop-last-step")

    def limit():  # in the child: the native CLI may not use more than the worker's share
        if limit_bytes:
            resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))

    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           preexec_fn=limit if limit_bytes else None)
    except OSError as e:
        why = "cannot run %s: %s" % (exe, e.strerror)
        return False, why + (" (under --limit-memory %s)" % _size(limit_bytes) if limit_bytes else "")
    if p.returncode == 0:
        return True, p.stdout.decode("utf-8")
    err = [l.strip() for l in p.stderr.decode("utf-8", "replace").strip().splitlines() if l.strip()]
    msg = err[-1] if err else "kinetoscope digest ended with status %d" % p.returncode
    if limit_bytes and (p.returncode < 0 or "bad_alloc" in msg or "failed to map" in msg):
        # The CLI is built without exceptions: running out of its address space aborts it.
        return False, "out of memory under --limit-memory %s (kinetoscope digest: %s)" % (
            _size(limit_bytes), msg.replace("what():", "").strip())
    if p.returncode < 0:
        msg = "kinetoscope digest was killed by signal %d%s" % (-p.returncode, (": " + msg) if err else "")
    return False, msg


def _size(n):
    return "%.0f MB" % (n / 1e6) if n < 10 ** 9 else "%.1f GB" % (n / 1e9)


def digest_batch(paths, exe, limit_bytes=None, drop_last_step=False):
    """Runs on a worker: several small files in one CLI process (`-o -` writes one line per
    digest, in order; a file that fails has no line and one error line on stderr), so a job of
    small ranks does not pay a process start per file. Returns [(ok, text)] parallel to paths.
    When the lines cannot be matched to the files (the process died midway), each file is
    digested alone, so one bad file never costs the batch."""
    if len(paths) == 1 or any(p.endswith(DIGEST_SUFFIX) for p in paths):
        return [digest_task(p, exe, limit_bytes, drop_last_step) for p in paths]
    cmd = [exe, "digest"] + list(paths) + ["-o", "-"]
    if drop_last_step:
        cmd.append("--drop-last-step")

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))

    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           preexec_fn=limit if limit_bytes else None)
    except OSError:
        return [digest_task(q, exe, limit_bytes, drop_last_step) for q in paths]
    failed = {}
    for line in p.stderr.decode("utf-8", "replace").splitlines():
        for q in paths:  # "kinetoscope: PATH: what at byte N: ..."
            head = "kinetoscope: %s: " % q
            if line.startswith(head):
                failed[q] = line.strip()
    lines = p.stdout.decode("utf-8").splitlines()
    good = [q for q in paths if q not in failed]
    # More lines than files: an export gave one per process; each file alone tells whose.
    if p.returncode not in (0, 1) or len(lines) != len(good):
        return [digest_task(q, exe, limit_bytes, drop_last_step) for q in paths]
    it = iter(lines)
    return [(False, failed[q]) if q in failed else (True, next(it)) for q in paths]


def batches(paths, batch_bytes):
    """Index lists: consecutive files grouped while their total size stays under batch_bytes
    (at most 64 a batch); a file of that size or more is a batch alone. 0: one file each."""
    out, cur, size = [], [], 0
    for k, p in enumerate(paths):
        try:
            n = os.path.getsize(p)
        except OSError:
            n = batch_bytes  # unreadable here: alone, its task says why
        if not batch_bytes or n >= batch_bytes:
            out.append([k])
            continue
        if cur and (size + n > batch_bytes or len(cur) >= 64):
            out.append(cur)
            cur, size = [], 0
        cur.append(k)
        size += n
    if cur:
        out.append(cur)
    return out


class Progress:
    """One line on a terminal, rewritten in place; plain lines every 10% elsewhere."""

    def __init__(self, total, stream=sys.stderr, enabled=True):
        self.total, self.stream, self.enabled = total, stream, enabled
        self.done = self.failed = 0
        self.t0 = time.monotonic()
        self.tty = stream.isatty()
        self._last_decile = -1

    def step(self, ok):
        self.done += 1
        self.failed += 0 if ok else 1
        if not self.enabled:
            return
        el = time.monotonic() - self.t0
        rate = self.done / el if el > 0 else 0.0
        frac = self.done / self.total if self.total else 1.0
        if self.tty:
            bar = "#" * int(30 * frac)
            self.stream.write("\r[%-30s] %d/%d files, %d failed, %.1f files/s " % (
                bar, self.done, self.total, self.failed, rate))
            if self.done == self.total:
                self.stream.write("\n")
            self.stream.flush()
        elif int(frac * 10) != self._last_decile or self.done == self.total:
            self._last_decile = int(frac * 10)
            self.stream.write("fleet: %d/%d files, %d failed, %.1f files/s\n" % (
                self.done, self.total, self.failed, rate))
            self.stream.flush()


def make_client(scheduler, limit_bytes=None):
    """'local:N' starts a LocalCluster of N worker processes (one thread each); anything else
    is a scheduler address (tcp://HOST:8786) of a running cluster."""
    from distributed import Client, LocalCluster
    if scheduler.startswith("local"):
        n = int(scheduler.split(":", 1)[1]) if ":" in scheduler else (os.cpu_count() or 1)
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                               memory_limit=limit_bytes or "auto", dashboard_address=None)
        return Client(cluster), cluster
    return Client(scheduler), None


def run(paths, reducer, scheduler="local:2", exe=None, limit_bytes=None, drop_last_step=False,
        progress=True, client=None, batch_bytes=16 * 10 ** 6):
    """Maps digest_batch over `paths` on the cluster (small files grouped up to batch_bytes a
    task, larger ones alone) and folds each digest into `reducer` as it arrives. Returns run
    facts (seconds, workers, tasks)."""
    import json
    from distributed import as_completed
    try:  # workers need not have fleet/ installed: the task travels by value
        import cloudpickle
        from . import graph as me
        cloudpickle.register_pickle_by_value(me)
    except (ImportError, AttributeError, ValueError):
        pass
    exe = exe or default_kinetoscope()
    own = client is None
    cluster = None
    t0 = time.monotonic()
    if own:
        client, cluster = make_client(scheduler, limit_bytes)
    try:
        workers = len(client.scheduler_info().get("workers", {}))
        t1 = time.monotonic()
        groups = batches(paths, batch_bytes)
        futures = client.map(digest_batch, [[paths[k] for k in g] for g in groups], exe=exe,
                             limit_bytes=limit_bytes, drop_last_step=drop_last_step, pure=False)
        index = {f.key: g for f, g in zip(futures, groups)}
        bar = Progress(len(paths), enabled=progress)
        for fut, results in as_completed(futures, with_results=True):
            for k, (ok, text) in zip(index[fut.key], results):
                if ok:
                    # One line per rank: an Nsight Systems export of several GPU processes
                    # (nsys profile torchrun ...) is that many ranks, as `kinetoscope report`
                    # reads it.
                    try:
                        for line in [x for x in text.splitlines() if x.strip()] or [text]:
                            reducer.add(k, paths[k], json.loads(line), digest_bytes=len(line))
                    except (ValueError, KeyError, TypeError) as e:
                        ok = False
                        reducer.add_error(k, paths[k], "digest unreadable: %s" % e)
                else:
                    reducer.add_error(k, paths[k], text)
                bar.step(ok)
            fut.release()
        t2 = time.monotonic()
    finally:
        if own:
            client.close()
            if cluster is not None:
                cluster.close()
    return {"scheduler": scheduler, "workers": workers, "files": len(paths), "tasks": len(groups),
            "seconds": round(t2 - t1, 3), "startup_seconds": round(t1 - t0, 3),
            "files_per_second": round(len(paths) / (t2 - t1), 2) if t2 > t1 else None}
