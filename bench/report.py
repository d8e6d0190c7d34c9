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
    report.py selftest DIR       the parsers against golden fixtures (TAP)

A raw run directory (raw/*/) holds what qemu-images/run.sh collected
(status, console.log, outbox/) and the boot's identity, run.json
(bench/runinfo.py); runs recorded before run.json are read by the one
legacy reader there. Kernels are compared with the run's control (the
variant with role control in qemu-images/variants: base). The record
schema is documented in bench/README.md.
"""

import contextlib
import io
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

import rawstore
import runinfo

# fio job name -> metrics taken from it: (key, fio path, unit, better, scale);
# a "write" path is read from "read" for a job that read more than it wrote.
FIO_METRICS = [
    ("bw", ("write", "bw_bytes"), "MiB/s", "higher", 1 / 1048576),
    ("iops", ("write", "iops"), "IO/s", "higher", 1),
    ("lat_p50", ("write", "lat_ns", "percentile", "50.000000"), "us", "lower", 1 / 1000),
    ("lat_p99", ("write", "lat_ns", "percentile", "99.000000"), "us", "lower", 1 / 1000),
    ("sys_cpu", ("sys_cpu",), "%", "lower", 1),
]


def dig(d, path):
    for p in path:
        if not isinstance(d, dict) or p not in d:
            return None
        d = d[p]
    return d


def read(path, default=None):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return default


def fio_jobs(text):
    """The jobs of fio's JSON output (fio may print warnings before it)."""
    return json.loads(text[text.index("{"):]).get("jobs", [])


def fio_pages(text):
    """{job: 4 KiB pages it moved, read and written}."""
    return {job["jobname"]: sum(dig(job, (rw, "io_bytes")) or 0 for rw in ("read", "write")) / 4096
            for job in fio_jobs(text)}


def fio_metrics(text):
    """Metrics of every job in fio's JSON output."""
    out = {}
    for job in fio_jobs(text):
        # A job's figures are those of the direction it moved data in.
        rw = "read" if (dig(job, ("read", "io_bytes")) or 0) > (dig(job, ("write", "io_bytes")) or 0) \
            else "write"
        for key, path, unit, better, scale in FIO_METRICS:
            if path[0] == "write":
                path = (rw,) + path[1:]
            v = dig(job, path)
            if v is not None:
                out["%s.%s" % (job["jobname"], key)] = {
                    "value": round(v * scale, 3), "unit": unit, "better": better}
        # A mixed job: the other direction's bandwidth too.
        other = "write" if rw == "read" else "read"
        v = dig(job, (other, "bw_bytes"))
        if (dig(job, (other, "io_bytes")) or 0) > 0 and v is not None:
            out["%s.%s_bw" % (job["jobname"], other)] = {
                "value": round(v / 1048576, 3), "unit": "MiB/s", "better": "higher"}
    return out


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


def selftest(d):
    """Parsers against golden fixtures: X.json (fio), X.txt (pagebench),
    X.memstress (memstress output), a directory X with raw/ (a run, as
    bench.sh leaves it: records, the "pays" tables and the kernels' table)
    or X.compare (two such runs compared: verdicts), and X.expected, one
    line per metric. TAP out."""
    results = []
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
            got = ["- %s %g" % (k, v["value"]) for k, v in sorted(fio_metrics(text).items())]
        elif ext == ".txt":
            got = ["%s %s %g" % (r["algorithm"], k, v["value"])
                   for r in pagebench_records({}, text) for k, v in sorted(r["metrics"].items())]
        elif ext == ".memstress":
            metrics, mismatches = memstress_metrics(text)
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


def vmstat(path):
    out = {}
    for line in (read(path) or "").splitlines():
        k, _, v = line.partition(" ")
        if v.strip().isdigit():
            out[k] = int(v)
    return out


PAGEBENCH_METRICS = [
    ("mib_s", "MiB/s", "higher"), ("p50_us", "us", "lower"), ("p99_us", "us", "lower"),
    ("max_us", "us", "none"), ("cpu_all_ms", "ms", "lower"), ("cpu_submitter_ms", "ms", "lower"),
]


def pagebench_records(base, text):
    """One record per algorithm of a pagebench run: metrics per depth and op."""
    recs = {}
    for line in text.splitlines():
        if not line.startswith("pagebench: "):
            continue
        kv = dict(f.split("=", 1) for f in line[len("pagebench: "):].split() if "=" in f)
        alg = kv.get("alg")
        if not alg:
            continue
        rec = recs.setdefault(alg, dict(base, algorithm=alg,
                                        mode="async" if alg.startswith("acompd(") else "sync",
                                        consumer="pagebench", metrics={}))
        if "op" not in kv or kv.get("errors") != "0" or kv.get("mismatches") != "0":
            continue
        pre = "d%s.%s" % (kv["depth"], kv["op"])
        for key, unit, better in PAGEBENCH_METRICS:
            if key in kv:
                rec["metrics"]["%s.%s" % (pre, key)] = {"value": float(kv[key]), "unit": unit,
                                                       "better": better}
        if kv["op"] == "compress" and "ratio_x1000" in kv:
            rec["metrics"]["ratio"] = {"value": int(kv["ratio_x1000"]) / 1000, "unit": "x",
                                       "better": "higher"}
    # An algorithm that produced no metric is not available on that kernel.
    return [r for r in recs.values() if r["metrics"]]


def guest_shape(d, default, cmdline=None):
    """The guest's shape ("-accel tcg -cpu max -smp 2 -m 384M") from the
    QEMU command line of the boot in D (CMDLINE, from its run.json, else
    run.sh's qemu-cmdline), else DEFAULT."""
    words = (cmdline or read(os.path.join(d, "qemu-cmdline")) or "").split()
    opts = dict(zip(words, words[1:]))
    shape = ["%s %s" % (o, opts[o]) for o in ("-accel", "-cpu", "-smp", "-m") if o in opts]
    return " ".join(shape) if shape else default


def raw_records(rundir, raw, name, facts):
    d = os.path.join(raw, name)
    ident = runinfo.identity(d)
    if not ident:
        return []
    kernel = ident["kernel"]
    alg = ident.get("legacy_alg") or ",".join(ident.get("modes") or []) or "all"
    status = (read(os.path.join(d, "status")) or "missing").strip()
    rec = {
        "scenario": ident["scenario"], "kernel": kernel, "kernel_role": ident.get("kernel_role"),
        "consumer": ident.get("consumer"),
        "mode": "async" if alg.startswith("acompd(") else "sync",
        "algorithm": alg, "rep": ident["rep"], "status": status,
        "kernel_release": ident.get("kernel_release") or
        (read(os.path.join(rundir, "kernels", kernel + ".release")) or "").strip(),
        "series": facts.get("series", ""), "qemu": ident.get("qemu") or facts.get("qemu", ""),
        "guest": guest_shape(d, facts.get("guest", ""), ident.get("qemu_cmdline")),
        "host_cpu": (ident.get("host") or {}).get("cpu") or facts.get("host_cpu", ""),
        "metrics": {},
    }
    if ident.get("kernel_source"):
        rec["kernel_source"] = ident["kernel_source"]
    pb = read(os.path.join(d, "outbox", "pagebench.txt"))
    if (rec["consumer"] or runinfo.legacy_consumer(rec["scenario"], False)) == "pagebench":
        rec["consumer"] = "pagebench"
        return pagebench_records(rec, pb or "") if status == "ok" else [rec]
    runs = os.path.join(d, "outbox", "runs")
    if os.path.isdir(runs):
        return [r for n in sorted(os.listdir(runs), key=int)
                for r in alg_record(rec, os.path.join(runs, n), status)]
    if not ident.get("legacy_alg"):
        return [dict(rec, consumer=rec["consumer"] or runinfo.legacy_consumer(rec["scenario"], False),
                     status=status if status != "ok" else "no results in outbox/runs")]
    # Older runs: one algorithm per boot, its files at the top of the outbox.
    return alg_record(rec, os.path.join(d, "outbox"), status, alg=alg, status="ok")


MEMSTRESS_METRICS = [
    ("pages_per_s", "pages/s", "higher"), ("mib_per_s", "MiB/s", "higher"),
    ("fault_p50_us", "us", "lower"), ("fault_p90_us", "us", "lower"),
    ("fault_p99_us", "us", "lower"), ("fault_p999_us", "us", "lower"),
    ("fault_max_us", "us", "none"), ("user_s", "s", "lower"), ("sys_s", "s", "lower"),
]


def memstress_kv(text):
    """The key=value fields of memstress's result line ({} without one)."""
    for line in (text or "").splitlines():
        if line.startswith("memstress: ") and "mismatches=" in line:
            return dict(f.split("=", 1) for f in line.split()[1:] if "=" in f)
    return {}


def memstress_metrics(text):
    """Metrics of memstress's result line, and its mismatch count."""
    kv = memstress_kv(text)
    if not kv:
        return {}, None
    return ({"memstress.%s" % k: {"value": float(kv[k]), "unit": u, "better": b}
             for k, u, b in MEMSTRESS_METRICS if k in kv}, int(kv["mismatches"]))


def psi_delta(before, after):
    """Seconds of memory stall (some, full) between two /proc/pressure/memory
    snapshots."""
    def totals(path):
        out = {}
        for line in (read(path) or "").splitlines():
            m = re.match(r"(some|full) .*total=(\d+)", line)
            if m:
                out[m.group(1)] = int(m.group(2))
        return out
    b, a = totals(before), totals(after)
    return {k: (a[k] - b[k]) / 1e6 for k in a if k in b}


USER_HZ = 100  # the unit of /proc/stat's CPU times


def cpu_delta(before, after):
    """Busy and softirq share of all CPUs' time between two snapshots of
    /proc/stat's "cpu" line (user nice system idle iowait irq softirq steal),
    in percent, the busy CPU time of all CPUs in seconds ("busy_s"), and the
    context switches ("ctxt") between them; what a snapshot lacks is left
    out."""
    def fields(path):
        lines = {f[0]: f[1:] for f in map(str.split, (read(path) or "").splitlines()) if f}
        cpu = [int(x) for x in lines.get("cpu", [])[:8]]
        ctxt = int(lines["ctxt"][0]) if lines.get("ctxt") else None
        return (cpu if len(cpu) == 8 else None), ctxt
    (b, cb), (a, ca) = fields(before), fields(after)
    out = {}
    if cb is not None and ca is not None:
        out["ctxt"] = ca - cb
    if not b or not a:
        return out
    d = [y - x for x, y in zip(b, a)]
    total = sum(d)
    if total > 0:
        out["busy"] = 100.0 * (total - d[3] - d[4]) / total
        out["softirq"] = 100.0 * d[6] / total
        out["busy_s"] = (total - d[3] - d[4]) / USER_HZ
    return out


def per_page(what, pages, cpu):
    """The cost of one 4 KiB page of WHAT (swap: a page swapped out; a fio
    job: a page read or written): busy CPU time of all CPUs and context
    switches, from cpu_delta() over the same interval."""
    out = {}
    if pages <= 0:
        return out
    if "busy_s" in cpu:
        out["%s.cpu_us_per_page" % what] = {"value": round(cpu["busy_s"] * 1e6 / pages, 2),
                                            "unit": "us", "better": "lower"}
    if "ctxt" in cpu:
        out["%s.ctxt_per_page" % what] = {"value": round(cpu["ctxt"] / pages, 4),
                                          "unit": "switches", "better": "none"}
    return out


def zswap_metrics(d):
    """zswap's debugfs counters over a run (files zswap.before/after, as
    "name value" lines) and its compression ratio at its fullest under load
    (zswap.loaded)."""
    before = vmstat(os.path.join(d, "zswap.before"))
    after = vmstat(os.path.join(d, "zswap.after"))
    loaded = vmstat(os.path.join(d, "zswap.loaded"))
    m = {}
    for k in ("async_compress", "async_decompress", "written_back_pages",
              "reject_compress_poor", "reject_alloc_fail", "reject_reclaim_fail"):
        if k in before and k in after:
            m["zswap.%s" % k] = {"value": after[k] - before[k], "unit": "pages", "better": "none"}
    if "async_wait_ns" in before and "async_wait_ns" in after:
        m["zswap.async_wait"] = {"value": round((after["async_wait_ns"] - before["async_wait_ns"]) / 1e9, 3),
                                 "unit": "s", "better": "none"}
    # Compressed pages (same-filled ones take no pool space) over the pool.
    if loaded.get("pool_total_size", 0) > 0 and "stored_pages" in loaded:
        pages = loaded["stored_pages"] - loaded.get("same_filled_pages", 0)
        m["zswap.ratio"] = {"value": round(pages * 4096 / loaded["pool_total_size"], 3),
                            "unit": "x", "better": "higher"}
    return m


def alg_record(base, d, boot_status, alg=None, status=None):
    """The record of one algorithm's run inside a boot (outbox/runs/N/, or
    the outbox itself for runs with one algorithm, given with its status)."""
    alg = alg or (read(os.path.join(d, "algorithm")) or "?").strip()
    status = status or (read(os.path.join(d, "status")) or "missing").strip()
    if status.startswith("not available"):
        return []
    if boot_status != "ok":
        status = boot_status
    rec = dict(base, algorithm=alg, mode="async" if alg.startswith("acompd(") else "sync",
               status=status, metrics={})
    # fio: fio-JOB.json per job with the CPU state around it (cpu.JOB.*),
    # or, in older runs, every job in one fio.json.
    if status == "ok" and os.path.isdir(d):
        for f in sorted(f for f in os.listdir(d) if re.match(r"^fio(-.+)?\.json$", f)):
            fio = read(os.path.join(d, f))
            rec["metrics"].update(fio_metrics(fio))
            for job, pages in fio_pages(fio).items():
                rec["metrics"].update(per_page(job, pages, cpu_delta(
                    os.path.join(d, "cpu.%s.before" % job), os.path.join(d, "cpu.%s.after" % job))))
    ms = read(os.path.join(d, "memstress.txt"))
    kv = memstress_kv(ms)
    if rec["consumer"] is None:
        rec["consumer"] = runinfo.legacy_consumer(rec["scenario"], ms is not None)
    if ms is not None:
        metrics, mismatches = memstress_metrics(ms)
        if mismatches is None or mismatches:
            rec["status"] = "memstress: %s" % ("no result line" if mismatches is None
                                               else "%d mismatches" % mismatches)
        rec["metrics"].update(metrics)
        # Who reclaims: the submitters of the swap load, or kswapd where no
        # cgroup limit makes the faulting tasks reclaim for themselves.
        limit = (read(os.path.join(d, "memory.max")) or "").strip()
        if limit == "none":
            rec["submitters"] = "kswapd"
        elif kv.get("procs"):
            rec["submitters"] = "%sp" % kv["procs"]
    before = vmstat(os.path.join(d, "vmstat.before"))
    after = vmstat(os.path.join(d, "vmstat.after"))
    delta = {k: after[k] - before[k] for k in after if k in before}
    for k in ("pswpin", "pswpout", "zswpin", "zswpout", "pgmajfault", "pgsteal_anon",
              "pgscan_anon", "pgsteal_file", "pgsteal_kswapd", "pgsteal_direct"):
        if k in delta:
            rec["metrics"]["vmstat.%s" % k] = {"value": delta[k], "unit": "pages", "better": "none"}
    stalls = [v for k, v in delta.items() if k.startswith("allocstall_")]
    if stalls:
        rec["metrics"]["vmstat.allocstall"] = {"value": sum(stalls), "unit": "stalls",
                                               "better": "none"}
    # Reclaim rates over the workload's run time: all of it (the figure
    # published for moving compression out of kswapd), kswapd's, and the
    # rest, reclaim by the faulting tasks themselves. vmstat's pgsteal_direct
    # leaves out reclaim for a cgroup's memory.max, which pgsteal_anon and
    # pgsteal_file count: direct = anon + file - kswapd.
    secs = float(kv.get("elapsed_s", 0))
    if secs and "pgsteal_anon" in delta:
        steal = {"pgsteal_anon": delta["pgsteal_anon"]}
        if "pgsteal_kswapd" in delta and "pgsteal_file" in delta:
            steal["pgsteal_kswapd"] = delta["pgsteal_kswapd"]
            steal["pgsteal_direct"] = delta["pgsteal_anon"] + delta["pgsteal_file"] - delta["pgsteal_kswapd"]
        for k, v in steal.items():
            rec["metrics"]["reclaim.%s_per_s" % k] = {"value": round(v / secs, 1), "unit": "pages/s",
                                                      "better": "none"}
    # Reclaim passes a cgroup's memory.max forced on its tasks (allocstall
    # counts global direct reclaim only).
    events = vmstat(os.path.join(d, "memcg-events"))
    if "max" in events:
        rec["metrics"]["memcg.max_events"] = {"value": events["max"], "unit": "events",
                                              "better": "none"}
    for kind, v in psi_delta(os.path.join(d, "psi-memory.before"),
                             os.path.join(d, "psi-memory.after")).items():
        rec["metrics"]["psi.memory_%s" % kind] = {"value": round(v, 3), "unit": "s",
                                                  "better": "none"}
    # How busy all CPUs were over the run: whether a mode kept them working
    # or waited (an asynchronous pipeline that leaves CPUs idle), and for
    # swap runs what a page swapped out cost (zswap: stored or written).
    cpu = cpu_delta(os.path.join(d, "cpu.before"), os.path.join(d, "cpu.after"))
    if "ctxt" in cpu:
        rec["metrics"]["sched.ctxt"] = {"value": cpu["ctxt"], "unit": "switches", "better": "none"}
    for kind in ("busy", "softirq"):
        if kind in cpu:
            rec["metrics"]["cpu.%s" % kind] = {"value": round(cpu[kind], 1), "unit": "%",
                                               "better": "none"}
    if "busy_s" in cpu:
        rec["metrics"]["cpu.busy_s"] = {"value": round(cpu["busy_s"], 2), "unit": "s", "better": "none"}
    if ms is not None:
        rec["metrics"].update(per_page("swap", delta.get("pswpout", 0) + delta.get("zswpout", 0), cpu))
    # zram's ratio: as loaded for swap runs (swapoff empties it), else after.
    loaded = read(os.path.join(d, "zram-mm_stat.loaded"))
    mm = (loaded if loaded is not None else
          "" if ms is not None else read(os.path.join(d, "zram-mm_stat.after")) or "").split()
    if len(mm) >= 2 and int(mm[1]) > 0:
        rec["metrics"]["zram.ratio"] = {"value": round(int(mm[0]) / int(mm[1]), 3),
                                        "unit": "x", "better": "higher"}
    if rec["consumer"] == "zswap-swap":
        rec["metrics"].update(zswap_metrics(d))
    st = (read(os.path.join(d, "zram-async_stat.after")) or "").split()
    if len(st) >= 5:
        rec["metrics"]["zram.async_submitted"] = {"value": int(st[0]), "unit": "pages",
                                                  "better": "none"}
        rec["metrics"]["zram.async_peak_in_flight"] = {"value": int(st[3]), "unit": "requests",
                                                       "better": "none"}
    return [rec]


def load_facts(rundir):
    facts = {}
    for line in (read(os.path.join(rundir, "facts.txt")) or "").splitlines():
        k, _, v = line.partition(": ")
        facts[k] = v
    return facts


def load_records(rundir, fresh=False):
    """The run's records: from its raw boots (raw/, or raw.tar.xz when
    FRESH or there is no records.jsonl yet), else its records.jsonl."""
    path = os.path.join(rundir, "records.jsonl")
    if os.path.exists(path) and not os.path.isdir(os.path.join(rundir, "raw")) and not (
            fresh and os.path.exists(os.path.join(rundir, rawstore.ARCHIVE))):
        with open(path, encoding="utf-8") as f:
            recs = [json.loads(line) for line in f if line.strip()]
        # Records written before kernel roles existed: the roles of then.
        for r in recs:
            if "kernel_role" not in r:
                r["kernel_role"] = runinfo.LEGACY_ROLES.get(r["kernel"])
        return recs
    facts = load_facts(rundir)
    recs = []
    with rawstore.raw_dir(rundir) as raw:
        for name in sorted(os.listdir(raw)) if raw else []:
            recs.extend(raw_records(rundir, raw, name, facts))
    return recs


def ok_metrics(recs):
    """(record, (scenario, consumer, mode, alg, metric), metric) for every
    metric of every successful record."""
    for r in recs:
        if r["status"] != "ok":
            continue
        for metric, m in r["metrics"].items():
            yield r, (r["scenario"], r["consumer"], r["mode"], r["algorithm"], metric), m


def group(recs):
    """{(scenario, consumer, mode, alg, metric): {kernel: [values]}} and units."""
    g, units = {}, {}
    for r, key, m in ok_metrics(recs):
        g.setdefault(key, {}).setdefault(r["kernel"], []).append(m["value"])
        units[key] = (m["unit"], m["better"])
    return g, units


def control_kernel(recs):
    """The run's control: the kernel whose boots were recorded with role
    control (qemu-images/variants), or None."""
    return next((r["kernel"] for r in recs if r.get("kernel_role") == "control"), None)


def kernel_order(recs):
    """The run's kernels: the control first, then the others by name."""
    ctl = control_kernel(recs)
    return ([ctl] if ctl else []) + sorted({r["kernel"] for r in recs} - {ctl})


def async_kernels(recs):
    """The kernels with an acompd mode measured (their acompd(X) and X are
    compared in the same boots), in kernel_order()."""
    have = {r["kernel"] for r in recs if r["status"] == "ok" and r["mode"] == "async"}
    return [k for k in kernel_order(recs) if k in have]


def fmt(v):
    return "%.3g" % v if abs(v) < 100 else "%.0f" % v


def cell(vals):
    if not vals:
        return "not available"
    return "%s [%s-%s]" % (fmt(statistics.median(vals)), fmt(min(vals)), fmt(max(vals)))


def against_sync(g, key, kernel):
    """For the key of an acompd(X) metric: X, KERNEL's values of X's same
    metric and of acompd(X)'s (the same boots), and the ratio of their
    medians (None when there is none); None for any other key."""
    m = re.match(r"acompd\((.+)\)$", key[3])
    if not m:
        return None
    a = g[key].get(kernel, [])
    s_ = g.get((key[0], key[1], "sync", m.group(1), key[4]), {}).get(kernel, [])
    ratio = (statistics.median(a) / statistics.median(s_)
             if a and s_ and statistics.median(s_) else None)
    return m.group(1), s_, a, ratio


def ratio_cell(ratio):
    return "%.2f" % ratio if ratio is not None else "n/a"


def async_vs_sync(g, units, kernel):
    """Table lines: each acompd(X) metric against X's, on KERNEL, both
    measured in the same boots."""
    rows = []
    for key in sorted(g):
        pair = against_sync(g, key, kernel)
        if not pair or units[key][1] == "none" or kernel not in g[key]:
            continue
        alg, s_, a, ratio = pair
        rows.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            key[0], alg, key[4], units[key][0], cell(s_), cell(a), ratio_cell(ratio)))
    if not rows:
        return []
    return ["", "## Asynchronous (acompd) against synchronous, %s kernel" % kernel, "",
            "Same boots, algorithms alternated inside each; ratio = acompd median / sync median.", "",
            "| scenario | algorithm | metric | unit | sync | acompd | acompd/sync |",
            "|---|---|---|---|---|---|---|"] + rows


# "When does asynchronous compression pay": (metric, column) per row kind.
PAYS_SWAP = [
    ("memstress.pages_per_s", "pages/s"), ("memstress.fault_p50_us", "fault p50 us"),
    ("memstress.fault_p99_us", "fault p99 us"), ("reclaim.pgsteal_anon_per_s", "pgsteal_anon/s"),
    ("reclaim.pgsteal_kswapd_per_s", "pgsteal_kswapd/s"),
    ("reclaim.pgsteal_direct_per_s", "pgsteal_direct/s"), ("vmstat.allocstall", "allocstalls"),
    ("memcg.max_events", "memory.max events"), ("swap.cpu_us_per_page", "CPU us/page"),
    ("swap.ctxt_per_page", "ctxt/page"),
]
PAYS_FIO_JOBS = ["seqwrite-64k", "randwrite-4k", "randread-4k", "randwrite-4k-qd16",
                 "randwrite-4k-qd16-batch"]
PAYS_FIO = [("bw", "MiB/s"), ("cpu_us_per_page", "CPU us/page"), ("ctxt_per_page", "ctxt/page")]


def submitters_rank(sub):
    m = re.match(r"^(\d+)p$", sub)
    return int(m.group(1)) if m else 1000 if sub == "kswapd" else 999


def pays_pairs(g, scen, cons, alg, metrics, kernel):
    """[(column, against_sync() of METRIC or None)] for (METRIC, column) in
    METRICS, of acompd ALG in SCEN/CONS on KERNEL."""
    keys = [((scen, cons, "async", alg, m), c) for m, c in metrics]
    return [(c, against_sync(g, k, kernel) if k in g and kernel in g[k] else None) for k, c in keys]


def all_pays_lines(recs):
    """pays_lines() of every kernel with an acompd mode."""
    kernels = async_kernels(recs)
    return [line for k in kernels for line in pays_lines(recs, k, len(kernels) > 1)]


def pays_lines(recs, kernel, name_it=False):
    """The "when does asynchronous compression pay" section: for every
    scenario and algorithm X measured both ways on KERNEL, acompd(X)
    against X (the same boots): swap loads by consumer and submitters (one,
    two, kswapd), and the zram fio jobs; first the ratios, then medians
    [min-max]. NAME_IT: the heading names the kernel (runs with several)."""
    g, _ = group(recs)
    info = {}
    for r in recs:
        if r["status"] == "ok" and r["kernel"] == kernel:
            shape = " ".join("-%s %s" % m for m in re.findall(r"-(smp|m) (\d+[MG]?)\b", r["guest"]))
            info.setdefault((r["scenario"], r["consumer"]), (r.get("submitters", "?"), shape))
    # (labels, [(column, pair)]) per row: pair from against_sync() or None.
    swap, fio = [], []
    for scen, cons in sorted(info):
        sub, shape = info[(scen, cons)]
        algs = sorted({k[3] for k in g if k[:2] == (scen, cons) and k[3].startswith("acompd(")})
        for alg in algs:
            x = alg[len("acompd("):-1]
            if cons in ("zram-swap", "zswap-swap"):
                swap.append(((cons.split("-")[0], submitters_rank(sub), scen, x),
                             [cons.split("-")[0], sub, shape, scen, x],
                             pays_pairs(g, scen, cons, alg, PAYS_SWAP, kernel)))
            elif cons == "zram-block":
                for i, job in enumerate(PAYS_FIO_JOBS):
                    pairs = pays_pairs(g, scen, cons, alg, [("%s.%s" % (job, m), c) for m, c in PAYS_FIO],
                                       kernel)
                    if any(p for _, p in pairs):
                        fio.append(((scen, i, x), [scen, job, shape, x], pairs))
    if not swap and not fio:
        return []
    out = ["", "## When does asynchronous compression pay%s" % (": %s kernel" % kernel if name_it else ""), "",
           "acompd(X) against X on the %s kernel, measured in the same boots. Ratios are " % kernel +
           "acompd median / sync median: above 1 favours acompd for throughput (pages/s, MiB/s), "
           "below 1 for latency and cost (fault p50/p99, CPU us and context switches per page: "
           "swap, per page swapped out, pswpout + zswpout; fio, per 4 KiB page read or written). "
           "Reclaim rates and stalls are context: kswapd's share against the faulting tasks' "
           "(direct: pgsteal_anon + pgsteal_file - pgsteal_kswapd, memory.max reclaim included); "
           "allocstalls count global direct reclaim, memory.max events a cgroup's limit reclaim."]
    for title, head, rows in (("Swap", ["consumer", "submitters", "guest", "scenario", "X"], swap),
                              ("zram fio jobs (1 job)", ["scenario", "job", "guest", "X"], fio)):
        if not rows:
            continue
        rows.sort(key=lambda r: r[0])
        cols = [c for c, _ in rows[0][2]]
        out += ["", "### %s: acompd(X) / X" % title, "",
                "| %s |" % " | ".join(head + cols), "|%s" % ("---|" * (len(head) + len(cols)))]
        out += ["| %s |" % " | ".join(labels + [ratio_cell(p[3]) if p else "-" for _, p in pairs])
                for _, labels, pairs in rows]
        out += ["", "### %s: medians [min-max]" % title, "",
                "| %s | metric | sync | acompd | acompd/sync |" % " | ".join(head),
                "|%s" % ("---|" * (len(head) + 4))]
        for _, labels, pairs in rows:
            out += ["| %s | %s | %s | %s | %s |" % (" | ".join(labels), c, cell(p[1]), cell(p[2]),
                                                    ratio_cell(p[3]))
                    for c, p in pairs if p]
    return out


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


def summary_table(recs, g, units):
    """The summary's main table: every compared metric's median [min-max]
    per kernel, the control first, and each other kernel's ratio to it."""
    kernels, ctl = kernel_order(recs), control_kernel(recs)
    others = [k for k in kernels if k != ctl]
    if ctl and len(others) == 1:
        how = "ratio = %s median / %s median" % (others[0], ctl)
    elif ctl and others:
        how = "ratio = each kernel's median / the control's (%s) median" % ctl
    elif ctl:
        how = "only the control kernel (%s) booted: no ratios" % ctl
    else:
        how = "no control kernel booted in this run (role control in qemu-images/variants): no ratios"
    ratios = ["%s/%s" % (k, ctl) for k in others] if ctl else []
    lines = ["Median [min-max] over repetitions; kernels alternated in one run; "
             "%s (TCG timings: only ratios are comparable)." % how, "",
             "| scenario | consumer | mode | algorithm | metric | unit | %s |" % " | ".join(kernels + ratios),
             "|---|---|---|---|---|---|%s" % ("---|" * len(kernels + ratios))]
    for key in sorted(g):
        if units[key][1] == "none":
            continue
        vals = [g[key].get(k, []) for k in kernels]
        cells = [cell(v) for v in vals]
        if ctl:
            c = g[key].get(ctl, [])
            for k in others:
                v = g[key].get(k, [])
                ratio = (statistics.median(v) / statistics.median(c)
                         if c and v and statistics.median(c) else None)
                cells.append("%.3f" % ratio if ratio is not None else "n/a")
        lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            key[0], key[1], key[2], key[3], key[4], units[key][0], " | ".join(cells)))
    return lines


def judge(va, vb, better, noise):
    """Medians of A and B, B/A, and the verdict: a change when the medians
    differ by more than the noise floor and the min-max ranges do not
    overlap, a regression when it goes the bad way."""
    ma, mb = statistics.median(va), statistics.median(vb)
    ratio = mb / ma if ma else float("inf")
    apart = max(va) < min(vb) or max(vb) < min(va)
    verdict = "same"
    if apart and abs(ratio - 1) > noise:
        worse = (ratio < 1) if better == "higher" else (ratio > 1)
        verdict = "REGRESSION" if worse else "improvement"
    return ma, mb, ratio, verdict


def compare(a, b, noise=0.03):
    """Ratios of B against A per metric and kernel. A change is flagged when
    the median moves by more than the noise floor and the two runs' min-max
    ranges do not overlap; a flagged change in the bad direction is a
    regression."""
    ga, ua = group(load_records(a))
    gb, _ = group(load_records(b))
    regressions = 0
    names = ["/".join(k) for k in set(ga) & set(gb)]
    width = max([len(n) for n in names] + [6])
    print("%-*s %-8s %12s %12s %7s  %s" % (width, "metric", "kernel", "A median", "B median", "B/A", "verdict"))
    for key in sorted(set(ga) & set(gb)):
        unit, better = ua[key]
        if better == "none":
            continue
        for kernel in sorted(set(ga[key]) & set(gb[key])):
            ma, mb, ratio, verdict = judge(ga[key][kernel], gb[key][kernel], better, noise)
            regressions += verdict == "REGRESSION"
            print("%-*s %-8s %12s %12s %7.3f  %s" % (width, "/".join(key), kernel, fmt(ma), fmt(mb), ratio, verdict))
    print("%d regression(s)" % regressions)
    return 1 if regressions else 0


def paired_ratios(recs):
    """{((scenario, consumer, mode, alg, metric), kernel): [kernel/control
    per rep]}: each value of a kernel other than the run's control over the
    control's value of the same rep (booted beside it), for the same
    algorithm, or for X when the mode is acompd(X), which the control may
    lack; and the control's name."""
    ctl = control_kernel(recs)
    vals, units = {}, {}
    for r, key, m in ok_metrics(recs):
        vals.setdefault((key, r["kernel"]), {})[r["rep"]] = m["value"]
        units[key] = (m["unit"], m["better"])
    out = {}
    for (key, kernel), reps in vals.items():
        if ctl is None or kernel == ctl or units[key][1] == "none":
            continue
        scen, cons, mode, alg, metric = key
        m = re.match(r"^acompd\((.+)\)$", alg)
        ckey = (scen, cons, "sync", m.group(1), metric) if m else key
        base = vals.get((ckey, ctl), {})
        ratios = [reps[i] / base[i] for i in sorted(reps) if base.get(i)]
        if ratios:
            out[(key, kernel)] = ratios
    return out, units, ctl


def compare_normalized(a, b, noise=0.03):
    """As compare(), on each run's kernel/control pair ratios instead of
    absolute values: the control kernel, booted beside the others in both
    runs, is the reference, so that a machine that got faster or slower
    between the runs does not show as a change."""
    ra, ua, ca = paired_ratios(load_records(a))
    rb, _, cb = paired_ratios(load_records(b))
    if ca is None or ca != cb:
        print("compare --against-base: the runs' controls differ or are missing (A: %s, B: %s)" % (ca, cb))
        return 2
    keys = sorted(set(ra) & set(rb))
    kernels = sorted({k for _, k in keys})
    label = {key: "/".join(key[0]) + ("" if len(kernels) == 1 else " [%s]" % key[1]) for key in keys}
    regressions = 0
    width = max([len(n) for n in label.values()] + [6])
    print("%s pair ratios of each run (the %s kernel as control)" % (
        ", ".join("%s/%s" % (k, ca) for k in kernels) or "no", ca))
    print("%-*s %10s %10s %7s  %s" % (width, "metric", "A ratio", "B ratio", "B/A", "verdict"))
    for key in keys:
        better = ua[key[0]][1]
        ma, mb, ratio, verdict = judge(ra[key], rb[key], better, noise)
        regressions += verdict == "REGRESSION"
        print("%-*s %10.3f %10.3f %7.3f  %s" % (width, label[key], ma, mb, ratio, verdict))
    print("%d regression(s)" % regressions)
    return 1 if regressions else 0


def plot_name(text):
    return re.sub(r"[^A-Za-z0-9.-]+", "_", text).strip("_")


def gp_label(text):
    return text.replace("_", "\\_").replace('"', "'")


def write_plot(rundir, name, dat_rows, script):
    """Write plots/NAME.dat and NAME.gp and render RUNDIR/NAME.png."""
    pdir = os.path.join(rundir, "plots")
    os.makedirs(pdir, exist_ok=True)
    dat = os.path.join(pdir, name + ".dat")
    with open(dat, "w", encoding="utf-8") as f:
        f.write("\n".join(dat_rows) + "\n")
    gp = os.path.join(pdir, name + ".gp")
    png = os.path.join(rundir, name + ".png")
    with open(gp, "w", encoding="utf-8") as f:
        f.write('set terminal pngcairo size 1000,560 font ",10"\n'
                'set output "%s"\nset datafile missing "?"\n%s\n' % (png, script.replace("DAT", dat)))
    subprocess.run(["gnuplot", gp], check=True)
    return os.path.basename(png)


def med(vals):
    return statistics.median(vals) if vals else None


def plot(rundir):
    """Throughput bars (median, min-max whiskers) and latency percentile
    curves per scenario, compression ratio per algorithm, from the run's
    records; the PNGs go next to summary.md, their data under plots/."""
    recs = load_records(rundir)
    g, units = group(recs)
    # The compression ratio of the kernel that has every algorithm: the
    # first with an acompd mode, else the first that is not the control.
    ctl = control_kernel(recs)
    rkernel = next(iter(async_kernels(recs) + [k for k in kernel_order(recs) if k != ctl]
                        + kernel_order(recs)), None)
    made = []
    scenarios = sorted({k[0] for k in g})
    for scen in scenarios:
        keys = [k for k in g if k[0] == scen]
        variants = sorted({(kern, k[3]) for k in keys for kern in g[k]},
                          key=lambda v: (v[1].startswith("acompd("), v[1], v[0]))
        # Throughput: higher-is-better rates, one cluster per metric.
        tput = sorted({k[4] for k in keys if units[k][1] == "higher" and
                       units[k][0] in ("MiB/s", "pages/s") and not k[4].endswith(".ratio")})
        by_unit = {}
        for m in tput:
            by_unit.setdefault(next(units[k][0] for k in keys if k[4] == m), []).append(m)
        for unit, metrics in sorted(by_unit.items()):
            rows = ["# metric " + " ".join("%s:%s:med %s:%s:min %s:%s:max" % (v[0], v[1], v[0], v[1],
                                                                               v[0], v[1]) for v in variants)]
            for m in metrics:
                cells = []
                for kern, alg in variants:
                    vals = next((g[k].get(kern, []) for k in keys if k[3] == alg and k[4] == m), [])
                    cells += ["%g" % x for x in (med(vals), min(vals), max(vals))] if vals else ["?"] * 3
                rows.append("%s %s" % (m.replace(".bw", "").replace("memstress.", ""), " ".join(cells)))
            plots = ", ".join(
                "'DAT' using %d:%d:%d:xtic(1) title \"%s %s\"" % (2 + 3 * i, 3 + 3 * i, 4 + 3 * i,
                                                                  gp_label(v[1]), v[0])
                for i, v in enumerate(variants))
            made.append(write_plot(rundir, plot_name("throughput-%s-%s" % (scen, unit.replace("/", "per"))),
                                   rows, "set title \"%s: throughput (median, whiskers min-max)\"\n"
                                   "set ylabel \"%s\"\nset yrange [0:*]\nset style data histogram\n"
                                   "set style histogram errorbars gap 2 lw 1\nset style fill solid 0.7 border -1\n"
                                   "set key outside right top\nset xtics rotate by -20\nset grid ytics\n"
                                   "plot %s" % (gp_label(scen), unit, plots)))
        # Latency percentiles of faults (memstress) or I/O (fio).
        pcts = [("p50", "50"), ("p90", "90"), ("p99", "99"), ("p999", "99.9")]
        lat = {}
        for k in keys:
            m = re.match(r"memstress\.fault_(p\d+)_us$", k[4]) or re.match(r"(.+)\.lat_(p\d+)$", k[4])
            if m and k[4].startswith("memstress."):
                lat.setdefault("faults", {})[(m.group(1))] = k[4]
            elif m:
                lat.setdefault(m.group(1), {})[m.group(2)] = k[4]
        for what, bypct in sorted(lat.items()):
            rows = ["# percentile " + " ".join("%s:%s" % v for v in variants)]
            for i, (p, label) in enumerate(pcts):
                if p not in bypct:
                    continue
                cells = []
                for kern, alg in variants:
                    vals = next((g[k].get(kern, []) for k in keys if k[3] == alg and k[4] == bypct[p]), [])
                    cells.append("%g" % med(vals) if vals else "?")
                rows.append("%d %s %s" % (i, label, " ".join(cells)))
            if len(rows) < 3:
                continue
            plots = ", ".join("'DAT' using 1:%d:xtic(2) with linespoints title \"%s %s\"" %
                              (3 + i, gp_label(v[1]), v[0]) for i, v in enumerate(variants))
            made.append(write_plot(rundir, plot_name("latency-%s-%s" % (scen, what)), rows,
                                   "set title \"%s: %s latency percentiles (medians)\"\n"
                                   "set offsets 0.2,0.2\nset xlabel \"percentile\"\nset ylabel \"us\"\nset logscale y\n"
                                   "set key outside right top\nset grid\nplot %s" %
                                   (gp_label(scen), gp_label(what), plots)))
    # Compression ratio per algorithm.
    rkeys = [k for k in g if k[4] in ("zram.ratio", "zswap.ratio", "ratio")]
    algs = sorted({k[3] for k in rkeys}, key=lambda a: (a.startswith("acompd("), a))
    scens = sorted({k[0] for k in rkeys})
    if rkeys:
        rows = ["# scenario " + " ".join(algs)]
        for scen in scens:
            cells = []
            for a in algs:
                vals = next((g[k].get(rkernel, []) for k in rkeys if k[0] == scen and k[3] == a), [])
                cells.append("%g" % med(vals) if vals else "?")
            rows.append("%s %s" % (scen, " ".join(cells)))
        plots = ", ".join("'DAT' using %d:xtic(1) title \"%s\"" % (2 + i, gp_label(a))
                          for i, a in enumerate(algs))
        made.append(write_plot(rundir, "ratio", rows,
                               "set title \"compression ratio per algorithm (%s kernel, medians)\"\n"
                               "set ylabel \"original / stored\"\nset yrange [0:*]\nset style data histogram\n"
                               "set style histogram clustered gap 2\nset style fill solid 0.7 border -1\n"
                               "set key outside right top\nset grid ytics\nplot %s" % (rkernel, plots)))
    with open(os.path.join(rundir, "summary.md"), "a", encoding="utf-8") as f:
        f.write("\n## Plots\n\n" + "".join("![%s](%s)\n" % (n[:-4], n) for n in made))
    print("plots: %s" % " ".join(made))
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "summarize":
        return summarize(argv[2])
    if len(argv) == 3 and argv[1] == "plot":
        return plot(argv[2])
    if len(argv) == 3 and argv[1] == "pays":
        return pays(argv[2])
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
