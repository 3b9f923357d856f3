#!/usr/bin/env python3
"""Checks the exact message the CLI gives for every file of the bad-input catalogue
(catalogue.json): exit status, the one stderr line for a refused file, and for a file that is read,
every diagnostic (code, count, first byte offset), the diagnostics lines of the text report, and how
many slices were kept. The big inputs are generated first into a build folder (generate.py --big),
and so are the hostile Nsight Systems exports (hostile_exports.py; source "hostile").

  check.py [--cli build/native/kinetoscope] [--big-dir build/bad_inputs] [--no-big] [-v]
Every run is measured (its own CPU time and peak RSS, from wait4) against the entry's budget:
max_cpu_seconds when given, max_rss_mb or DEFAULT_MAX_RSS_MB, and the JSON report's size against
max_report_kb when given. -v prints both for every file.
  check.py --table      prints the table of docs/hardening.md from catalogue.json
Ends with "N passed, M failed".
"""
import json
import os
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.path.join(ROOT, "..", "shared", "traces")
# The memory budget of an input whose catalogue entry gives none (max_rss_mb): every run is
# measured against one. The small inputs peak at ~5 MB, the 65 MB event near 200 MB.
DEFAULT_MAX_RSS_MB = 512
TIME = "/usr/bin/time"  # GNU time, where installed: the CLI's own peak RSS (see run())
VERBOSE = "-v" in sys.argv


def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def path_of(entry, big_dir):
    where = entry.get("source", "small")
    if where == "small":
        return os.path.join(HERE, entry["file"])
    if where == "shared":
        return os.path.join(SHARED, entry["file"])
    # "big" and "hostile": generated into the build folder.
    return os.path.join(big_dir, entry["file"])


def table():
    rows = json.load(open(os.path.join(HERE, "catalogue.json")))
    print("| Input | File | Exit | What the user sees (CLI; the page shows the same) | What was kept |")
    print("| --- | --- | --- | --- | --- |")
    for e in rows:
        if e["exit"]:
            seen = "`" + e["error"].replace("|", "\\|") + "`"
        else:
            seen = "<br>".join("`%s` x%d at byte %d" % (d[0], d[1], d[2]) for d in e["diagnostics"]) or "no diagnostic"
        print("| %s | `%s`%s | %d | %s | %s |" % (
            e["what"], e["file"], " (generated)" if e.get("source") in ("big", "hostile") else
            " (../shared)" if e.get("source") == "shared" else "", e["exit"], seen, e["kept"]))


def run(cli, path, fmt):
    """Runs the CLI; returns its result, the CPU seconds it used (user + system: unlike wall time,
    not inflated by other work on a shared machine) and its own peak RSS in MB. Both come from
    wait4() on that one process: RUSAGE_CHILDREN would give the peak of all runs so far, so a run
    after a bigger one would go unmeasured."""
    # The peak RSS of a process forked from this one starts at this one's (Linux copies the high
    # water mark at fork and keeps it across exec), and this one grows while it reads the big
    # reports: every run after events_10m measured 206 MB. GNU time forks the CLI from its own
    # small process and reports that child's peak.
    peak_file = tempfile.NamedTemporaryFile(delete=False) if os.path.exists(TIME) else None
    command = [cli, "report", "--format", fmt, path]
    if peak_file:
        peak_file.close()
        command = [TIME, "-f", "%M", "-o", peak_file.name] + command
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(command, stdout=out, stderr=err)
        timer = threading.Timer(1800, p.kill)  # a hang guard
        timer.start()
        try:
            _, status, usage = os.wait4(p.pid, 0)
        finally:
            timer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        result = subprocess.CompletedProcess(command, p.returncode, out.read(), err.read())
    peak_kb = usage.ru_maxrss
    if peak_file:
        with open(peak_file.name) as f:  # after "Command exited with non-zero status N"
            peak_kb = int(f.read().split()[-1])
        os.unlink(peak_file.name)
    return result, usage.ru_utime + usage.ru_stime, peak_kb / 1024


def main():
    if "--table" in sys.argv:
        return table()
    cli = os.path.join(ROOT, arg("--cli", os.environ.get("KINETOSCOPE_CLI", "build/native/kinetoscope")))
    big_dir = os.path.join(ROOT, arg("--big-dir", "build/bad_inputs"))
    no_big = "--no-big" in sys.argv
    rows = json.load(open(os.path.join(HERE, "catalogue.json")))
    if not no_big:
        subprocess.run([sys.executable, os.path.join(HERE, "generate.py"), "--big", big_dir], check=True)
    # The hostile exports are small (one holds a 20 MB value) and need Python's sqlite3 only.
    subprocess.run([sys.executable, os.path.join(HERE, "hostile_exports.py"), big_dir], check=True)
    passed = failed = skipped = 0
    for e in rows:
        path = path_of(e, big_dir)
        if e.get("source") == "big" and no_big:
            skipped += 1
            continue
        if not os.path.exists(path):
            print("SKIP  %s: %s is absent" % (e["file"], path))
            skipped += 1
            continue
        problems = []
        p, secs, rss = run(cli, path, "json")
        err = p.stderr.decode("utf-8", "replace")
        if p.returncode != e["exit"]:
            problems.append("exit %d, expected %d (%s)" % (p.returncode, e["exit"], err.strip()))
        elif e["exit"]:
            want = "kinetoscope: %s: %s\n" % (path, e["error"])
            if err != want:
                problems.append("stderr %r, expected %r" % (err, want))
        else:
            report = json.loads(p.stdout)
            # The report's own size: a table of the file's names (phases, categories) that lists
            # every distinct one grows with the file (102 MB for 100,000 distinct phases).
            most = e.get("max_report_kb")
            if most and len(p.stdout) > most * 1024:
                problems.append("a JSON report of %d KB, more than %d KB" % (len(p.stdout) // 1024, most))
            got = [[d["code"], d["count"], d["first_offset"]] for d in report["diagnostics"]]
            if got != e["diagnostics"]:
                problems.append("diagnostics %s, expected %s" % (got, e["diagnostics"]))
            if report["trace"]["slices"] != e["slices"]:
                problems.append("%d slices kept, expected %d" % (report["trace"]["slices"], e["slices"]))
            # Steps left out (nested or overlapping markers) are said in the report: its JSON
            # field, and the note in the text report.
            for key, want_value in e.get("steps", {}).items():
                if report["steps"].get(key) != want_value:
                    problems.append("steps.%s %r, expected %r" % (key, report["steps"].get(key), want_value))
            text, _, _ = run(cli, path, "text")
            out = text.stdout.decode("utf-8", "replace")
            # text_note: a note of the report; diagnostic_note: a diagnostic's sentence about this
            # file (the page's Diagnostics table shows it too: tests/browser/bad_inputs.mjs).
            for note in (e.get("text_note"), e.get("diagnostic_note")):
                if note and note not in out:
                    problems.append("the text report lacks %r" % note)
            for code, count, offset in e["diagnostics"]:
                needle = "%-26s x%d (first at byte %d)" % (code, count, offset)
                if path.endswith(".sqlite"):  # "(first in TABLE row N)" or no place at all
                    needle = "%-26s x%d " % (code, count)
                if needle not in out:
                    problems.append("the text report lacks the line %r" % needle)
        limit = e.get("max_cpu_seconds")
        if limit and secs > limit:
            problems.append("took %.1f s of CPU, more than %d s" % (secs, limit))
        budget = e.get("max_rss_mb", DEFAULT_MAX_RSS_MB)
        if rss > budget:
            problems.append("used %.0f MB, more than %d MB" % (rss, budget))
        extra = " (%.1f s CPU, %.0f MB)" % (secs, rss) if secs > 1 or rss > 100 or VERBOSE else ""
        if problems:
            failed += 1
            print("FAIL  %s%s\n      %s" % (e["file"], extra, "\n      ".join(problems)))
        else:
            passed += 1
            print("ok    %s%s" % (e["file"], extra))
    print("%d passed, %d failed%s" % (passed, failed, ", %d skipped" % skipped if skipped else ""))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
