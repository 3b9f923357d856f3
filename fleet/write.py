"""fleet.json as text (a terminal) or Markdown (a PR or an issue): findings first, then the
nodes and ranks that stand out, the collectives, the kernels, and the files that failed."""
from . import rules


def _table(head, rows, md):
    if md:
        out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
        out += ["| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |" for r in rows]
        return "\n".join(out) + "\n"
    cells = [list(map(str, head))] + [[str(c) for c in r] for r in rows]
    w = [max(len(r[k]) for r in cells) for k in range(len(head))]
    lines = ["  ".join(c.ljust(w[k]) if k == 0 else c.rjust(w[k]) for k, c in enumerate(r)).rstrip()
             for r in cells]
    lines.insert(1, "  ".join("-" * x for x in w))
    return "\n".join(lines) + "\n"


def _ms(us_value):
    return "-" if us_value is None else "%.2f" % (us_value / 1e3)


def _render(doc, md):
    h1 = (lambda t: "# %s\n\n" % t) if md else (lambda t: "%s\n%s\n\n" % (t, "=" * len(t)))
    h2 = (lambda t: "\n## %s\n\n" % t) if md else (lambda t: "\n%s\n%s\n" % (t, "-" * len(t)))
    ranks, nodes = doc["ranks"], doc.get("nodes", [])
    out = [h1("Fleet: %d ranks on %d nodes" % (len(ranks), len(nodes)))]
    out.append("%d files, %d read, %d failed. Schema %s.\n" % (
        doc.get("inputs", len(ranks)), doc.get("ranks_read", len(ranks)), len(doc.get("failed", [])),
        doc.get("schema")))
    run = doc.get("run")
    if run:
        out.append("Digested on %s (%d workers) in %.1f s, %s files/s.\n" % (
            run["scheduler"], run["workers"], run["seconds"], run["files_per_second"]))
    out.append(h2("Findings"))
    if not doc["findings"]:
        out.append("None: no rank or node stands out.\n")
    for f in doc["findings"]:
        ev = f.get("evidence", {})
        who = []
        if ev.get("nodes") and f["id"].endswith("_node"):
            who.append("nodes " + ", ".join(ev["nodes"]))
        if ev.get("ranks"):
            rk = ev["ranks"]
            who.append("ranks " + ", ".join(map(str, rk[:16])) + (" ..." if len(rk) > 16 else ""))
        line = "[%s] %s (%s)" % (f["severity"], f["title"], f["id"])
        out.append(("- " if md else "* ") + line + ("\n  " + "; ".join(who) if who else "") + "\n")
        if f.get("fix"):
            out.append("  Fix: %s\n" % f["fix"])
    # The slowest ranks by compute, and the most waiting, as the rows to open first.
    out.append(h2("Ranks (the 10 with the most compute, of %d)" % len(ranks)))
    top = sorted(ranks, key=lambda r: -r.get("compute_us", 0))[:10]
    out.append(_table(["rank", "node", "step med ms", "compute ms", "comm ms", "wait ms", "data ms", "file"],
                      [[r["rank"], r.get("node", ""), _ms(r.get("step_median_us")), _ms(r.get("compute_us")),
                        _ms(r.get("collective_sum_us")), _ms(r.get("wait_us")), _ms(r.get("dataloader_us")),
                        r.get("file", "")] for r in top], md))
    if nodes:
        out.append(h2("Nodes (medians over their ranks)"))
        rows = sorted(nodes, key=lambda n: -(n.get("compute_us") or 0))[:20]
        out.append(_table(["node", "ranks", "step med ms", "compute ms", "comm ms", "data ms"],
                          [[n["node"], len(n["ranks"]), _ms(n.get("step_median_us")), _ms(n.get("compute_us")),
                            _ms(n.get("collective_sum_us")), _ms(n.get("dataloader_us"))] for n in rows], md))
        if len(nodes) > 20:
            out.append("(%d more nodes in fleet.json)\n" % (len(nodes) - 20))
    c = doc.get("collectives", {})
    if c.get("by_name"):
        out.append(h2("Collectives (%d matched across ranks by order of issue)" % c.get("matched", 0)))
        shared = doc.get("shared_steps")
        if shared:
            out.append("Compared over the %s.\n\n" % rules.shared_steps_text(shared))
        out.append(_table(["kernel", "collective", "calls", "transfer ms", "wait ms", "busbw GB/s"],
                          [[g["name"][:60], g["collective"], g["count"], _ms(g["transfer_us"]), _ms(g["wait_us"]),
                            "-" if g.get("busbw_gbps") is None else g["busbw_gbps"]] for g in c["by_name"]], md))
    k = doc.get("kernels", {})
    if k.get("rows"):
        out.append(h2("Kernels across the fleet (top 10 of %d names)" % k.get("names", 0)))
        out.append(_table(["kernel", "calls", "ranks", "total ms", "median us", "p99 us", "max us"],
                          [[r["name"][:60], r["count"], r["ranks"], _ms(r["total_us"]), r["median_us"],
                            r["p99_us"], r["max_us"]] for r in k["rows"][:10]], md))
    if doc.get("failed"):
        out.append(h2("Files that failed (%d)" % len(doc["failed"])))
        for e in doc["failed"]:
            out.append(("- " if md else "* ") + "%s: %s\n" % (e["path"], e["error"]))
    return "".join(out)


def text(doc):
    return _render(doc, md=False)


def markdown(doc):
    return _render(doc, md=True)
