#!/usr/bin/env python3
"""Benchmark records, summaries and comparisons.

    report.py summarize RUNDIR   raw/*/ -> records.jsonl + summary.md, prints the table
    report.py compare A B        per-metric ratios B/A; exit 1 on a regression
    report.py compare --against-base A B
                                 the same on each run's patched/base pair
                                 ratios (the base kernel as control)
    report.py plot RUNDIR        gnuplot PNGs of a summarized run (throughput,
                                 latency percentiles, compression ratio)
    report.py pays RUNDIR        "when does asynchronous compression pay":
                                 acompd(X) against X per consumer and
                                 submitters (also at the end of summary.md)
    report.py profile RUNDIR     per-function differences of guest kernel
                                 instructions per page (or request): two
                                 kernels, or acompd(X) against X on one
    report.py selftest DIR       the parsers against golden fixtures (TAP)

The command line of the report; its jobs live beside it: parse.py (each
guest scenario's parser), records.py (a run's records from its raw boots),
stats.py (medians, tables, compare verdicts), plots.py (gnuplot). Kernels
are compared with the run's control (the variant with role control in
qemu-images/variants: base). The record schema is documented in
bench/README.md.
"""

import contextlib
import io
import json
import os
import re
import shutil
import sys
import tempfile

import parse
import rawstore
from parse import read
from plots import plot
from records import load_records
from stats import (all_pays_lines, async_kernels, async_vs_sync, cell, compare, compare_normalized,
                   group, kernel_order, profile_lines, summary_table)

def fixture_run_lines(rundir):
    """What selftest compares for a fixture run directory (raw/ as bench.sh
    leaves it): each record's identity, submitters, guest, consumer and
    kernel role, the metrics of per-page cost, reclaim and stalls, then the
    "pays" tables and the summary's table of kernels."""
    recs = load_records(rundir)
    out = []
    for r in sorted(recs, key=lambda r: (r["scenario"], r["kernel"], r["algorithm"], r["rep"])):
        out.append("%s %s %s r%d %s submitters=%s guest=%s consumer=%s role=%s" % (
            r["scenario"], r["kernel"], r["algorithm"], r["rep"], r["status"],
            r.get("submitters", "-"), r["guest"], r["consumer"], r.get("kernel_role")))
        out += ["  %s %g" % (k, v["value"]) for k, v in sorted(r["metrics"].items())
                if re.search(r"per_page|_per_s$|allocstall|memcg\.|\.bw$|pswpout|zswpout", k)]
    g, units = group(recs)
    table = [line for line in summary_table(recs, g, units)
             if not line.startswith("| ") or re.search(r"^\| scenario |pages_per_s|\.bw ", line)]
    return out + all_pays_lines(recs) + [""] + table


def fixture_compare_lines(d, text):
    """What selftest compares for X.compare ("A DIR", "B DIR" and, for the
    pair ratios against each run's control, a line "against-base"): the
    compare verdicts of the throughput metrics, the header and the count of
    regressions, and the exit status."""
    spec = dict((line.split(" ", 1) + [""])[:2] for line in text.splitlines() if line.strip())
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        a, b = os.path.join(d, spec["A"].strip()), os.path.join(d, spec["B"].strip())
        rc = compare_normalized(a, b) if "against-base" in spec else compare(a, b)
    lines = out.getvalue().splitlines()
    keep = [" ".join(line.split()) for line in lines
            if re.search(r"^metric |pair ratios|pages_per_s|regression\(s\)", line)]
    return keep + ["exit %d" % rc]


def scenario_fixture_lines(fdir, guest):
    """What selftest compares for the parser of guest scenario GUEST on its
    fixture FDIR (one algorithm's outbox/runs/N/, or the boot's outbox for
    a parser of the whole boot; fixture.json gives the record's consumer):
    each record's algorithm, status, submitters and metrics."""
    kind, parser = parse.SCENARIOS[guest]
    base = dict(json.loads(read(os.path.join(fdir, "fixture.json")) or "{}"), scenario=guest,
                kernel="k", rep=1, status="ok")
    if kind == "boot":
        recs = parser(fdir, dict(base, metrics={}))
    else:
        alg = (read(os.path.join(fdir, "algorithm")) or "?").strip()
        rec = dict(base, algorithm=alg, metrics={})
        parser(fdir, rec)
        recs = [rec]
    out = []
    for r in recs:
        out.append("%s status=%s submitters=%s consumer=%s" % (
            r["algorithm"], r["status"], r.get("submitters", "-"), r["consumer"]))
        out += ["- %s %g %s %s" % (k, v["value"], v["unit"], v["better"]) for k, v in sorted(r["metrics"].items())]
        for what, ph in sorted((r.get("insn") or {}).items()):
            out.append("- insn %s %s" % (what, " ".join(
                "%s=%s" % (k, ph[k]) for k in sorted(ph) if k not in ("groups", "funcs"))))
            out.append("  groups %s" % " ".join("%s=%g" % kv for kv in sorted(ph["groups"].items())))
            out.append("  funcs %s" % " ".join("%s=%g" % kv for kv in list(ph["funcs"].items())[:5]))
    return out


def scenario_fixtures(d):
    """[(ok, description)]: every guest scenario's parser (parse.SCENARIOS)
    against its fixture D/NAME/ and D/NAME.expected; a scenario without one
    fails."""
    results = []
    for guest in sorted(parse.SCENARIOS):
        fdir = os.path.join(d, guest)
        if not os.path.isdir(fdir):
            results.append((False, "scenario %s: parser fixture missing (%s/)" % (guest, fdir)))
            continue
        got = scenario_fixture_lines(fdir, guest)
        want = (read(os.path.join(d, guest + ".expected")) or "").splitlines()
        results.append((got == want and len(got) > 1, "scenario %s: its parser against its fixture" % guest))
        if got != want:
            print("# %s: got\n#   %s" % (guest, "\n#   ".join(got)))
    return results


def selftest(d):
    """Parsers against golden fixtures: X.json (fio), X.txt (pagebench),
    X.memstress (memstress output), a directory X with raw/ (a run, as
    bench.sh leaves it: records, the "pays" tables and the kernels' table)
    or X.compare (two such runs compared: verdicts), and X.expected, one
    line per metric; and each guest scenario's parser on its fixture
    (scenarios/NAME/, scenario_fixtures()). TAP out."""
    results = scenario_fixtures(os.path.join(d, "scenarios"))
    for f in sorted(os.listdir(d)):
        base, ext = os.path.splitext(f)
        if os.path.isdir(os.path.join(d, f, "raw")):
            got = fixture_run_lines(os.path.join(d, f))
            want = (read(os.path.join(d, f + ".expected")) or "").splitlines()
            results.append((got == want, "bench run fixture %s (records, pays, kernels)" % f))
            if got != want:
                print("# %s: got\n#   %s" % (f, "\n#   ".join(got)))
            # The same run kept as results/ keeps it: raw/ as one archive.
            with tempfile.TemporaryDirectory() as tmp:
                run = os.path.join(tmp, f)
                shutil.copytree(os.path.join(d, f), run)
                rawstore.archive(run)
                back = fixture_run_lines(run) if not os.path.exists(os.path.join(run, "raw")) else []
            results.append((back == want, "bench run fixture %s read from raw.tar.xz" % f))
            continue
        if os.path.isdir(os.path.join(d, f)):
            continue
        text = read(os.path.join(d, f))
        if ext == ".json":
            got = ["- %s %g" % (k, v["value"]) for k, v in sorted(parse.fio_metrics(text).items())]
        elif ext == ".txt":
            got = ["%s %s %g" % (r["algorithm"], k, v["value"])
                   for r in parse.pagebench_records({}, text) for k, v in sorted(r["metrics"].items())]
        elif ext == ".memstress":
            metrics, mismatches = parse.memstress_metrics(text)
            got = ["- %s %g" % (k, v["value"]) for k, v in sorted(metrics.items())]
            got.append("mismatches %s" % mismatches)
        elif ext == ".compare":
            got = fixture_compare_lines(d, text)
        else:
            continue
        want = (read(os.path.join(d, base + ".expected")) or "").splitlines()
        results.append((got == want, "bench %s fixture %s" % ("compare" if ext == ".compare" else "parser", f)))
        if got != want:
            print("# %s: got\n#   %s" % (f, "\n#   ".join(got)))
    for i, (ok, desc) in enumerate(results, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", i, desc))
    print("1..%d" % len(results))
    return 0 if results and all(ok for ok, _ in results) else 1


def pays(rundir):
    lines = all_pays_lines(load_records(rundir))
    print("\n".join(lines[1:]) if lines else "no acompd(X) and X measured in the same boots")
    return 0 if lines else 1


def summarize(rundir):
    recs = load_records(rundir, fresh=True)
    with open(os.path.join(rundir, "records.jsonl"), "w", encoding="utf-8") as f:
        for r in recs:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    g, units = group(recs)
    failed = [r for r in recs if r["status"] != "ok"]
    facts = read(os.path.join(rundir, "facts.txt"), "")
    kernels = kernel_order(recs)
    lines = ["# Benchmark run %s" % os.path.basename(rundir.rstrip("/")), "",
             "```", facts.strip(), "```", ""] + summary_table(recs, g, units)
    for k in async_kernels(recs):
        lines.extend(async_vs_sync(g, units, k))
    lines.extend(all_pays_lines(recs))
    ctx = [k for k in sorted(g) if units[k][1] == "none"]
    if ctx:
        lines += ["", "## Context (not compared): reclaim, PSI, vmstat deltas, counters", "",
                  "| scenario | mode | algorithm | metric | unit | %s |" % " | ".join(kernels),
                  "|---|---|---|---|---|%s" % ("---|" * len(kernels))]
        lines += ["| %s | %s | %s | %s | %s | %s |" % (
            k[0], k[2], k[3], k[4], units[k][0],
            " | ".join(cell(g[k].get(kern, [])) for kern in kernels)) for k in ctx]
    lines.append("")
    lines.append("%d runs, %d failed%s" % (len(recs), len(failed), "".join(
        "\n- %s %s r%d: %s" % (r["scenario"], r["kernel"], r["rep"], r["status"]) for r in failed)))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(rundir, "summary.md"), "w", encoding="utf-8") as f:
        f.write(text)
    print(text)
    return 1 if failed or not recs else 0


def main(argv):
    if len(argv) == 3 and argv[1] == "summarize":
        return summarize(argv[2])
    if len(argv) == 3 and argv[1] == "plot":
        return plot(argv[2])
    if len(argv) == 3 and argv[1] == "pays":
        return pays(argv[2])
    if len(argv) == 3 and argv[1] == "profile":
        lines = profile_lines(load_records(argv[2]))
        print("\n".join(lines) if lines else "no counted phases in %s (run with the plugin)" % argv[2])
        return 0 if lines else 1
    if len(argv) == 3 and argv[1] == "selftest":
        return selftest(argv[2])
    if len(argv) == 4 and argv[1] == "compare":
        return compare(argv[2], argv[3])
    if len(argv) == 5 and argv[1] == "compare" and argv[2] == "--against-base":
        return compare_normalized(argv[3], argv[4])
    sys.stderr.write(__doc__)
    return 2



if __name__ == "__main__":
    sys.exit(main(sys.argv))
