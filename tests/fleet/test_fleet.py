#!/usr/bin/env python3
"""The fleet (fleet/, kinetoscope digest) on a Dask LocalCluster of 2 worker processes.

- the fleet result equals the in-process multi-rank report (kinetoscope report FILES --format
  json) on the real 8-rank set, number for number;
- a digest alone equals its trace's own report (kernel moments, findings), and the merged
  quantile sketch gives the exact fleet-wide kernel medians within its 1% bound;
- jobs of 64 and 512 ranks with planted problems (examples/fleet/generate.py): the findings
  name exactly the planted ranks and node;
- a file that is not a trace is listed with its error, the rest still reported;
- --report as text and Markdown.

Run: /usr/bin/python3 tests/fleet/test_fleet.py (needs build/native/kinetoscope and Debian's
python3-distributed). Prints "N passed, M failed" last.
"""

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "examples", "fleet"))

from fleet import graph, reduce, write  # noqa: E402

EXE = os.path.join(ROOT, "build", "native", "kinetoscope")
TRACES = os.path.join(ROOT, "..", "shared", "traces")
DLRM = sorted(glob.glob(os.path.join(TRACES, "param__dlrm_kineto__worker*.json")))
CLIENT = None
CLUSTER = None


def client():
    global CLIENT, CLUSTER
    if CLIENT is None:
        from distributed import Client, LocalCluster
        CLUSTER = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        CLIENT = Client(CLUSTER)
    return CLIENT


def fleet_of(paths):
    r = reduce.Reducer()
    facts = graph.run(paths, r, exe=EXE, progress=False, client=client())
    doc = reduce.finish(r.result(inputs=len(paths)))
    doc["run"] = facts
    # What python3 -m fleet writes is JSON: the test reads it back as the page would.
    return json.loads(json.dumps(doc))


def named(doc):
    ranks, nodes = set(), set()
    for f in doc["findings"]:
        ranks.update(f["evidence"].get("ranks", []))
        if f["id"].endswith("_node"):
            nodes.update(f["evidence"].get("nodes", []))
    return ranks, nodes


class _SameAsInProcess:
    """The fleet's report of FILES against the CLI's multi-rank report of the same files."""
    FILES = []

    @classmethod
    def setUpClass(cls):
        out = subprocess.run([EXE, "report"] + cls.FILES + ["--format", "json"], stdout=subprocess.PIPE,
                             check=True).stdout
        cls.mr = json.loads(out)
        cls.fleet = fleet_of(cls.FILES)

    def test_rank_rows(self):
        keys = [k for k in self.mr["ranks"][0] if k not in ("step_mean",)]
        self.assertEqual(len(self.fleet["ranks"]), len(self.FILES))
        for a, b in zip(self.mr["ranks"], self.fleet["ranks"]):
            for k in keys:
                self.assertEqual(a[k], b[k], "rank %s %s" % (a["rank"], k))

    def test_collectives(self):
        a, b = self.mr["collectives"], self.fleet["collectives"]
        for k in ("counts_match", "names_match", "matched", "p2p_pairs", "p2p_unmatched"):
            self.assertEqual(a[k], b[k], k)
        self.assertEqual(len(a["rows"]), len(b["rows"]))
        for x, y in zip(a["rows"], b["rows"]):
            for k in ("index", "name", "transfer_us", "collective", "dtype", "bytes", "algbw_gbps", "busbw_gbps"):
                self.assertEqual(x[k], y[k], "collective %d %s" % (x["index"], k))
            # null: a rank outside the row's process group (a group of some of the ranks)
            self.assertAlmostEqual(sum(d - x["transfer_us"] for d in x["dur_us"] if d is not None),
                                   y["wait_sum_us"], places=3)
        for x, y in zip(a["by_name"], b["by_name"]):
            for k in ("name", "collective", "count", "sized", "bytes", "transfer_us", "wait_us", "busbw_gbps"):
                self.assertEqual(x[k], y[k], "group %s %s" % (x["name"], k))

    def test_late_start(self):
        a, b = self.mr["late_start"], self.fleet["late_start"]
        self.assertTrue(a["computed"])
        for k in ("computed", "kernel", "flagged_steps"):
            self.assertEqual(a[k], b[k], k)

    def test_heatmap(self):
        a, b = self.mr["heatmap"], self.fleet["heatmap"]
        self.assertEqual(a["steps"], b["steps"])
        for key_a, key_b in (("step_time_us", "step_time"), ("collective_wait_us", "collective_wait"),
                             ("compute_us", "compute"), ("dataloader_us", "dataloader")):
            for ra, rb in zip(a[key_a], b[key_b]):
                self.assertEqual([None if v is None else round(v) for v in ra], rb, key_a)

    def test_findings(self):
        def key(f):
            ev = f["evidence"]
            return (f["id"], f["severity"], f["title"], ev.get("rank"), ev.get("late_start_flags"),
                    ev.get("steps_flagged"), ev.get("likely_cause"),
                    f["fix"] if f["id"] == "ranks.straggler" else None)
        a = [key(f) for f in self.mr["findings"]]
        b = [key(f) for f in self.fleet["findings"] if f["id"].startswith("ranks.")]
        self.assertTrue(a, "the set has multi-rank findings to compare")
        self.assertEqual(a, b)


@unittest.skipUnless(len(DLRM) == 8, "the 8-rank set (../shared/traces/param__dlrm_*) is absent")
class MissingRanksSameAsInProcess(_SameAsInProcess, unittest.TestCase):
    """Six of the eight DLRM ranks (their distributedInfo says world_size 8): the fleet says ranks
    6 and 7 are missing, as the CLI does (it did not: its reducer never read the digests'
    world_size)."""
    FILES = DLRM[:6]

    def test_findings(self):
        super().test_findings()
        f = [f for f in self.fleet["findings"] if f["id"] == "ranks.missing"]
        self.assertEqual(len(f), 1)
        self.assertEqual(f[0]["title"], "6 of 8 ranks given (world_size 8): ranks 6, 7 missing")
        self.assertEqual(self.fleet["missing_ranks"], {"world_size": 8, "count": 2, "ranks": [6, 7]})

    def test_old_digests(self):
        # Digests without world_size (before it was written) read as before: nothing missing.
        out = subprocess.run([EXE, "digest"] + self.FILES + ["-o", "-"], stdout=subprocess.PIPE,
                             check=True).stdout.decode()
        digests = [json.loads(x) for x in out.splitlines() if x.strip()]
        self.assertTrue(all(d["world_size"] == 8 for d in digests))
        r = reduce.Reducer()
        for k, d in enumerate(digests):
            del d["world_size"]
            r.add(k, self.FILES[k], d)
        doc = reduce.finish(r.result())
        self.assertIsNone(doc["missing_ranks"])
        self.assertNotIn("ranks.missing", [f["id"] for f in doc["findings"]])


# Collectives on the CPU: 4 gloo ranks on one H200, rank 2 the straggler (gloo:* ranges).
GLOO = sorted(glob.glob(os.path.join(ROOT, "examples", "pathologies", "h200", "ddp4_gloo_slow2", "*.gz")))


class GlooSameAsInProcess(_SameAsInProcess, unittest.TestCase):
    FILES = GLOO

    def test_straggler(self):
        ids = [(f["id"], f["evidence"].get("rank")) for f in self.fleet["findings"]]
        self.assertIn(("ranks.straggler", 2), ids)
        # rank 2 burns 20 ms of CPU a step in record_function("slow_rank_extra_work")
        cause = [f["evidence"]["likely_cause"] for f in self.fleet["findings"] if f["id"] == "ranks.straggler"]
        self.assertTrue(cause[0].startswith("host range slow_rank_extra_work: 60."), cause)
        self.assertEqual([c["name"] for c in self.fleet["collectives"]["by_name"]], ["gloo:all_reduce"])


class _WrittenSameAsInProcess(_SameAsInProcess):
    """_SameAsInProcess on rank files a tests/corpus script writes into a temporary folder:
    `write(folder)` gives their paths."""

    @classmethod
    def write(cls, folder):
        raise NotImplementedError

    @staticmethod
    def corpus(name):
        sys.path.insert(0, os.path.join(ROOT, "tests", "corpus"))
        return __import__(name)

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.FILES = cls.write(cls.tmp)
        super().setUpClass()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)


@unittest.skipUnless(len(DLRM) == 8, "the 8-rank set (../shared/traces/param__dlrm_*) is absent")
class PipelineSameAsInProcess(_WrittenSameAsInProcess, unittest.TestCase):
    """Four pipeline stages (tests/corpus/dist_shapes.py): NCCL send/recv between neighbours, the
    middle stages issuing twice as many as the ends. They are paired by their peer args (a send
    with its peer's receive), not matched across all ranks: waits per pair, no collective_mismatch."""

    @classmethod
    def write(cls, folder):
        return cls.corpus("dist_shapes").write_pipeline(folder)

    def test_findings(self):
        # The stages alike: no multi-rank finding from either (the base test wants some).
        self.assertEqual([f["id"] for f in self.mr["findings"]], [])
        self.assertEqual([f["id"] for f in self.fleet["findings"] if f["id"].startswith("ranks.")],
                         [])

    def test_no_mismatch(self):
        self.assertTrue(self.fleet["collectives"]["counts_match"])
        ids = [f["id"] for f in self.fleet["findings"]]
        self.assertNotIn("ranks.collective_mismatch", ids)


@unittest.skipUnless(len(DLRM) == 8, "the 8-rank set (../shared/traces/param__dlrm_*) is absent")
class SilentGroupMemberSameAsInProcess(_WrittenSameAsInProcess, unittest.TestCase):
    """The pipeline of tests/corpus/unseen_shapes.py (pipeline_groups) whose last stage skips its
    embedding group's all_reduce (group 5 of ranks 0 and 3, by "Process Group Ranks"): the fleet
    names rank 3 as the CLI does (it could not: its digests did not carry the group's members)."""

    @classmethod
    def write(cls, folder):
        return cls.corpus("unseen_shapes").write_pipeline_groups(folder, last_joins=False)[1]

    def test_findings(self):
        super().test_findings()
        f = [f for f in self.fleet["findings"] if f["id"] == "ranks.group_member_silent"]
        self.assertEqual(len(f), 1)
        ev = f[0]["evidence"]
        self.assertEqual((ev["rank"], ev["process_group"], ev["members"], ev["group_collectives"]),
                         (3, "5", "0, 3", 2))
        self.assertEqual(ev["ranks"], [3])
        self.assertEqual(self.fleet["silent_members"],
                         [{"process_group": "5", "rank": 3, "members": "0, 3", "group_collectives": 2}])

    def test_old_digests(self):
        """Digests written before they carried the groups' members are read as before: nobody
        is known to be a member, no finding."""
        out = subprocess.run([EXE, "digest"] + self.FILES + ["-o", "-"], stdout=subprocess.PIPE,
                             check=True).stdout.decode()
        digests = [json.loads(x) for x in out.splitlines() if x.strip()]
        self.assertTrue(all("group_ranks" in d["collectives"] for d in digests))
        r = reduce.Reducer()
        for k, d in enumerate(digests):
            del d["collectives"]["group_ranks"]
            r.add(k, self.FILES[k], d)
        doc = reduce.finish(r.result())
        self.assertEqual(doc["silent_members"], [])
        self.assertNotIn("ranks.group_member_silent", [f["id"] for f in doc["findings"]])


@unittest.skipUnless(len(DLRM) == 8, "the 8-rank set (../shared/traces/param__dlrm_*) is absent")
class SlowPipelineStageSameAsInProcess(_WrittenSameAsInProcess, unittest.TestCase):
    """The same pipeline, every stage joining, stage 2 computing 1.5x as long: the fleet names
    it the pipeline's slowest stage as the CLI does, and not also as a compute skew."""

    @classmethod
    def write(cls, folder):
        return cls.corpus("unseen_shapes").write_pipeline_groups(folder, slow=2)[1]

    def test_findings(self):
        super().test_findings()
        ids = [(f["id"], f["evidence"].get("rank")) for f in self.fleet["findings"] if f["id"].startswith("ranks.")]
        self.assertEqual(ids, [("ranks.slow_pipeline_stage", 2)])
        f = [f for f in self.fleet["findings"] if f["id"] == "ranks.slow_pipeline_stage"][0]
        mr = [f for f in self.mr["findings"] if f["id"] == "ranks.slow_pipeline_stage"][0]
        self.assertEqual(f["evidence"]["ranks"], [2])
        for k, v in mr["evidence"].items():
            self.assertEqual(f["evidence"][k], v, k)


@unittest.skipUnless(len(DLRM) == 8, "the 8-rank set (../shared/traces/param__dlrm_*) is absent")
class PipelineReplicasSameAsInProcess(_WrittenSameAsInProcess, unittest.TestCase):
    """Two replicas of a 2-stage pipeline, stage 1 slow in both (tests/corpus/unseen_shapes.py
    pipeline_replicas): one slow-stage finding naming both ranks, neither a compute skew."""

    @classmethod
    def write(cls, folder):
        return cls.corpus("unseen_shapes").write_pipeline_replicas(folder)

    def test_slow_ranks(self):
        f = [f for f in self.fleet["findings"] if f["id"].startswith("ranks.")]
        self.assertEqual([(x["id"], x["evidence"]["rank"]) for x in f], [("ranks.slow_pipeline_stage", 1)])
        self.assertEqual(f[0]["evidence"]["slow_ranks"], "1, 3")


@unittest.skipUnless(len(DLRM) == 8, "the 8-rank set (../shared/traces/param__dlrm_*) is absent")
class ExpertParallelSameAsInProcess(_WrittenSameAsInProcess, unittest.TestCase):
    """Four expert-parallel ranks exchanging tokens by all-to-all, rank 1's expert getting twice
    the tokens (tests/corpus/unseen_shapes.py moe): the straggler, its cause and the fix to
    balance the experts' load, as the CLI gives them."""

    @classmethod
    def write(cls, folder):
        return cls.corpus("unseen_shapes").write_moe(folder)

    def test_straggler(self):
        f = [f for f in self.fleet["findings"] if f["id"] == "ranks.straggler"]
        self.assertEqual([x["evidence"]["rank"] for x in f], [1])
        self.assertIn("hot experts", f[0]["fix"])


@unittest.skipUnless(len(DLRM) == 8, "the 8-rank set (../shared/traces/param__dlrm_*) is absent")
class TwoDimensionalSameAsInProcess(_WrittenSameAsInProcess, unittest.TestCase):
    """Tensor x data parallel on 2x2 ranks with named process groups, rank 1 slow
    (tests/corpus/dist_shapes.py): no group holds every rank, each is matched among its members
    (rows, waits, heat map), and the straggler is named as the CLI names it."""

    @classmethod
    def write(cls, folder):
        return cls.corpus("dist_shapes").write_two_d(folder)

    def test_straggler(self):
        f = [f for f in self.fleet["findings"] if f["id"] == "ranks.straggler"]
        self.assertEqual([x["evidence"]["rank"] for x in f], [1])


@unittest.skipUnless(len(DLRM) == 8, "the 8-rank set (../shared/traces/param__dlrm_*) is absent")
class LateCaptureSameAsInProcess(_WrittenSameAsInProcess, unittest.TestCase):
    """The DLRM ranks given a second step, rank 3's capture begun at it
    (tests/corpus/late_capture_ranks.py): collectives are compared over the step every capture
    holds, as the CLI compares them; from each capture's first, rank 3's step-11 collectives met
    the others' step-10 ones (a false collective_mismatch, rank 3 the straggler)."""

    @classmethod
    def write(cls, folder):
        late = cls.corpus("late_capture_ranks")
        return late.write_set(folder, "late", late=late.LATE_RANK)

    def test_shared_steps(self):
        self.assertEqual(self.mr["shared_steps"], [11])
        self.assertEqual(self.fleet["shared_steps"], [11])
        ids = [f["id"] for f in self.fleet["findings"]]
        self.assertNotIn("ranks.collective_mismatch", ids)
        self.assertIn("Compared over the 1 steps every rank's capture holds (the captures hold different "
                      "steps), from step 11.",
                      write.text(self.fleet))


class LateLaunchSameAsInProcess(LateCaptureSameAsInProcess):
    """The same, with rank 6 running behind: its last collective of step 11 launched inside the
    step and run after its end (late_capture_ranks.py delay_last_nccl). A collective belongs
    to the step it was launched in: by its GPU start the fleet left it out on rank 6 alone
    (7 vs 8 collectives, a false collective_mismatch)."""

    @classmethod
    def write(cls, folder):
        late = cls.corpus("late_capture_ranks")
        return late.write_set(folder, "behind", late=late.LATE_RANK, delay=6)


@unittest.skipUnless(len(DLRM) == 8, "the 8-rank set (../shared/traces/param__dlrm_*) is absent")
class SameAsInProcess(_SameAsInProcess, unittest.TestCase):
    FILES = DLRM

    def test_kernel_sketch_medians(self):
        # Exact per-name kernel durations over the 8 traces, read here from the raw JSON.
        durs = {}
        for p in DLRM:
            with open(p) as f:
                for e in json.load(f)["traceEvents"]:
                    if e.get("ph") == "X" and e.get("cat") == "kernel":
                        durs.setdefault(e["name"], []).append(int(round(float(e["dur"]) * 1000)))
        rows = {r["name"]: r for r in self.fleet["kernels"]["rows"]}
        checked = 0
        for name, v in durs.items():
            if name not in rows:
                continue
            v.sort()
            exact = v[(len(v) - 1) // 2]  # the sketch's lower median
            r = rows[name]
            self.assertEqual(r["count"], len(v), name)
            self.assertAlmostEqual(r["total_us"], sum(v) / 1e3, places=3)
            self.assertLessEqual(abs(r["median_us"] * 1e3 - exact), 0.0101 * exact + 1, name)
            checked += 1
        self.assertGreater(checked, 10)

    def test_digest_alone_equals_its_report(self):
        p = DLRM[3]
        d = json.loads(subprocess.run([EXE, "digest", p, "-o", "-"], stdout=subprocess.PIPE, check=True).stdout)
        rep = json.loads(subprocess.run([EXE, "report", p, "--format", "json"], stdout=subprocess.PIPE,
                                        check=True).stdout)
        kern = {r["name"]: r for r in rep["kernels"]["rows"]}
        self.assertEqual(sum(r[1] for r in d["kernels"]), rep["kernels"]["count"])
        for name, count, total, lo, hi, sum_sq, sketch in d["kernels"]:
            k = kern[name]
            self.assertEqual((count, total / 1e3, lo / 1e3, hi / 1e3),
                             (k["count"], k["total_us"], k["min_us"], k["max_us"]), name)
            self.assertEqual(sum(sketch["n"]) + sketch["zero"], count)
            if count > 1:
                var = (sum_sq - total * total / count) / (count - 1)
                self.assertAlmostEqual(var ** 0.5 / 1e3, k["stddev_us"], places=2)
        self.assertEqual([f["id"] for f in d["findings"]], [f["id"] for f in rep["findings"]])
        # Its steps and step time are the report's.
        st = rep["steps"]
        self.assertEqual(d["steps"], st["count"])
        self.assertEqual([s[0] for s in d["step_spans"]], [r["number"] for r in st["rows"]])
        self.assertEqual([(s[2] - s[1]) / 1e3 for s in d["step_spans"]], [r["dur_us"] for r in st["rows"]])
        self.assertEqual(d["step_median_2ns"] / 2e3, st["median_us"])
        # Small: a digest is a fraction of its trace.
        self.assertLess(len(json.dumps(d)), os.path.getsize(p) / 5)


class Planted(unittest.TestCase):
    def check_job(self, n):
        tmp = tempfile.mkdtemp(prefix="ks_fleet_")
        try:
            import generate
            plan, _ = generate.write_job(tmp, n, seed=7, steps=4, layers=2)
            doc = fleet_of(graph.expand([tmp]))
            self.assertEqual(doc["ranks_read"], n)
            self.assertEqual(doc["failed"], [])
            want_ranks = {plan["slow_gpu"]["rank"], plan["dataloader_stall"]["rank"], plan["desync"]["rank"]}
            want_ranks |= set(plan["slow_node"]["ranks"])
            ranks, nodes = named(doc)
            self.assertEqual(ranks, want_ranks)
            self.assertEqual(nodes, {plan["slow_node"]["node"]})
            by = {}
            for f in doc["findings"]:
                by.setdefault(f["id"], []).append(f["evidence"])
            self.assertEqual([e["ranks"] for e in by["fleet.slow_compute"]], [[plan["slow_gpu"]["rank"]]])
            self.assertEqual([e["nodes"] for e in by["fleet.slow_compute_node"]], [[plan["slow_node"]["node"]]])
            self.assertEqual([e["ranks"] for e in by["fleet.slow_dataloader"]], [[plan["dataloader_stall"]["rank"]]])
            self.assertEqual([e["ranks"] for e in by["fleet.collective_desync"]], [[plan["desync"]["rank"]]])
            self.assertEqual(by["fleet.collective_desync"][0]["positions"], [plan["desync"]["position"]])
            self.assertEqual(len(doc["nodes"]), n // 8)
            self.assertEqual(len(doc["heatmap"]["step_time"]), n)
            return doc
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_64_ranks(self):
        self.check_job(64)

    def test_512_ranks(self):
        self.check_job(512)


class NsysExportOfSeveralProcesses(unittest.TestCase):
    def test_torchrun_export_is_four_ranks(self):
        # One Nsight Systems export of `nsys profile torchrun --nproc_per_node=4` (built by
        # tests/nsys/make_exports.py): four ranks, rank 2 the straggler, as kinetoscope report
        # reads it; alone and batched with another file.
        tmp = tempfile.mkdtemp(prefix="ks_fleet_nsys_")
        try:
            subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tests", "nsys", "make_exports.py"), tmp],
                           check=True, stdout=subprocess.PIPE)
            export = os.path.join(tmp, "torchrun_4procs.sqlite")
            doc = fleet_of([export])
            self.assertEqual(doc["ranks_read"], 4, doc["failed"])
            self.assertEqual([r["rank"] for r in doc["ranks"]], [0, 1, 2, 3])
            straggler = [f for f in doc["findings"] if f["id"] == "ranks.straggler"]
            self.assertTrue(straggler and straggler[0]["evidence"]["rank"] == 2, doc["findings"])
            both = fleet_of([export, os.path.join(tmp, "training_steps.sqlite")])
            self.assertEqual(both["ranks_read"], 5, both["failed"])
            # Two nodes' exports (the same job's processes, four each): ranks 0-7, the second
            # export's numbered on after the first's, as kinetoscope report numbers them.
            node1 = os.path.join(tmp, "torchrun_node1.sqlite")
            shutil.copy(export, node1)
            nodes = fleet_of([export, node1])
            self.assertEqual(nodes["ranks_read"], 8, nodes["failed"])
            self.assertEqual([r["rank"] for r in nodes["ranks"]], list(range(8)))
            self.assertEqual([r["file"].split(" pid ")[0] for r in nodes["ranks"]],
                             ["torchrun_4procs.sqlite"] * 4 + ["torchrun_node1.sqlite"] * 4)
            identity = [f for f in nodes["findings"] if f["id"] == "ranks.identity"]
            self.assertTrue(identity and "in 2 exports" in identity[0]["title"], nodes["findings"])
            cli = subprocess.run([EXE, "report", "--format", "json", export, node1], check=True,
                                 stdout=subprocess.PIPE, text=True)
            in_process = json.loads(cli.stdout)
            self.assertEqual([(r["rank"], r["file"]) for r in in_process["ranks"]],
                             [(r["rank"], r["file"]) for r in nodes["ranks"]])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


@unittest.skipUnless(DLRM, "the DLRM traces are absent")
class MergedKinetoFile(unittest.TestCase):
    def test_two_nodes_ranks_in_one_file_are_two_ranks(self):
        # Two nodes' ranks merged into one Kineto file (tests/corpus/merged_ranks.py), on one
        # GPU pid and on GPU pids of their own, rank 1 the straggler: two ranks, as kinetoscope
        # report reads the file, and the straggler rule names rank 1.
        tmp = tempfile.mkdtemp(prefix="ks_fleet_merged_")
        try:
            for own in ([], ["--own-gpu"]):
                path = os.path.join(tmp, "merged%s.json" % "".join(own))
                subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tests", "corpus", "merged_ranks.py"),
                                "--write", path, "--straggler"] + own, check=True)
                doc = fleet_of([path])
                self.assertEqual(doc["ranks_read"], 2, doc["failed"])
                self.assertEqual([r["rank"] for r in doc["ranks"]], [0, 1])
                straggler = [f for f in doc["findings"] if f["id"] == "ranks.straggler"]
                self.assertTrue(straggler and straggler[0]["evidence"]["rank"] == 1, doc["findings"])
                identity = [f for f in doc["findings"] if f["id"] == "ranks.identity"]
                self.assertTrue(identity and "launched the GPU work" in identity[0]["title"],
                                doc["findings"])
                cli = subprocess.run([EXE, "report", "--format", "json", path], check=True,
                                     stdout=subprocess.PIPE, text=True)
                in_process = json.loads(cli.stdout)
                self.assertEqual([(r["rank"], r["file"]) for r in in_process["ranks"]],
                                 [(r["rank"], r["file"]) for r in doc["ranks"]])
            # Two merged files given together: their ranks numbered on, 0-3.
            both = fleet_of([os.path.join(tmp, "merged.json"), os.path.join(tmp, "merged--own-gpu.json")])
            self.assertEqual([r["rank"] for r in both["ranks"]], [0, 1, 2, 3])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


@unittest.skipUnless(len(DLRM) == 8, "the 8-rank set is absent")
class Failures(unittest.TestCase):
    def test_bad_file_listed_rest_reported(self):
        tmp = tempfile.mkdtemp(prefix="ks_fleet_")
        try:
            bad = os.path.join(tmp, "rank-9.json")
            with open(bad, "w") as f:
                f.write("hello")
            doc = fleet_of(DLRM[:3] + [bad])
            self.assertEqual(doc["ranks_read"], 3)
            self.assertEqual(len(doc["failed"]), 1)
            self.assertEqual(doc["failed"][0]["path"], bad)
            self.assertIn("not_json at byte 0", doc["failed"][0]["error"])
            text = write.text(doc)
            self.assertIn("Files that failed (1)", text)
            self.assertIn("| rank | node |", write.markdown(doc))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_limit_memory_gives_an_error_not_a_crash(self):
        big = glob.glob(os.path.join(TRACES, "tracelens__xdit_flux.1__*.json.gz"))  # needs ~60 MB
        if big:
            ok, msg = graph.digest_task(big[0], EXE, limit_bytes=16 * 2 ** 20)
            self.assertFalse(ok)
            self.assertIn("out of memory under --limit-memory 17 MB", msg)
        ok, text = graph.digest_task(DLRM[0], EXE, limit_bytes=2 * 2 ** 30)
        self.assertTrue(ok, text)
        self.assertEqual(json.loads(text)["schema"], "kinetoscope.digest/1")

    def test_cli_on_a_running_cluster_with_relative_paths(self):
        # --scheduler tcp://...: a cluster started elsewhere (here, the tests' LocalCluster), run
        # from another directory than the workers': the files must still be found.
        here = os.path.join(ROOT, "tests", "fleet")
        rel = [os.path.relpath(p, here) for p in DLRM[:3]]
        env = dict(os.environ, PYTHONPATH=ROOT)
        p = subprocess.run([sys.executable, "-m", "fleet"] + rel + ["--scheduler", CLUSTER.scheduler_address if
                            client() else "", "-o", os.path.join(tempfile.gettempdir(), "ks_fleet_tcp.json"),
                            "--no-progress", "--kinetoscope", EXE], env=env, cwd=here,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        self.assertIn(b"3 ranks read, 0 failed", p.stderr)
        os.unlink(os.path.join(tempfile.gettempdir(), "ks_fleet_tcp.json"))

    def test_cli_end_to_end(self):
        tmp = tempfile.mkdtemp(prefix="ks_fleet_")
        try:
            out = os.path.join(tmp, "fleet.json")
            env = dict(os.environ, PYTHONPATH=ROOT)
            p = subprocess.run([sys.executable, "-m", "fleet"] + DLRM[:4] + ["--scheduler", "local:2", "-o", out,
                                "--limit-memory", "2GB", "--kinetoscope", EXE], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            self.assertEqual(p.returncode, 0, p.stderr.decode())
            self.assertIn(b"4 ranks read, 0 failed", p.stderr)
            rep = subprocess.run([sys.executable, "-m", "fleet", "--report", out, "--format", "md"], env=env,
                                 stdout=subprocess.PIPE, check=True).stdout.decode()
            self.assertIn("# Fleet: 4 ranks", rep)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    if not os.path.exists(EXE):
        print("tests/fleet: build/native/kinetoscope is missing (make native first)")
        sys.exit(1)
    res = unittest.main(exit=False, verbosity=1).result
    bad = len(res.failures) + len(res.errors)
    if CLIENT is not None:
        CLIENT.close()
        CLUSTER.close()
    print("%d passed, %d failed" % (res.testsRun - bad - len(res.skipped), bad))
    sys.exit(1 if bad else 0)
