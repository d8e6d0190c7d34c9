#!/usr/bin/env python3
"""Parsers: what a guest scenario left in a boot's outbox, as metrics.

Each guest scenario (bench/scenarios/NAME.sh) has one parser here, named in
SCENARIOS, and one golden fixture (tests/fixtures/bench/scenarios/NAME/ and
NAME.expected, checked by report.py selftest). A metric is
{"value": V, "unit": U, "better": "higher"|"lower"|"none"}; the record
schema is documented in bench/README.md.
"""

import json
import os
import re

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


def insn_phases(d):
    """The counted phases of insn.txt in D (bench/insn.py resolve):
    {label: {"total", "kernel", "groups": {group: n}, "funcs": {name: n}}}."""
    out = {}
    for line in (read(os.path.join(d, "insn.txt")) or "").splitlines():
        f = line.split()
        if len(f) == 4 and f[0] == "phase":
            out[f[1]] = {"total": int(f[2]), "kernel": int(f[3]), "groups": {}, "funcs": {}}
        elif len(f) == 4 and f[0] in ("group", "func") and f[1] in out:
            out[f[1]][f[0] + "s"][f[2]] = int(f[3])
    return out


# Functions kept per phase in a record (the most instructions first).
INSN_TOP = 60


def insn_per_unit(rec, what, units, phase, unit="page"):
    """Guest instructions per UNITS of WHAT (a 4 KiB page, or a request)
    in the counted PHASE (insn_phases()): metrics WHAT.kinsn_per_UNIT (the
    kernel's) and WHAT.insn_per_UNIT (all, user space included), and in
    rec["insn"][WHAT] the kernel's split per UNIT by subsystem group and by
    function (the INSN_TOP largest)."""
    if not phase or units <= 0:
        return
    m = rec["metrics"]
    m["%s.kinsn_per_%s" % (what, unit)] = {"value": round(phase["kernel"] / units, 1),
                                          "unit": "insns", "better": "lower"}
    m["%s.insn_per_%s" % (what, unit)] = {"value": round(phase["total"] / units, 1),
                                         "unit": "insns", "better": "lower"}
    if units == int(units):
        units = int(units)
    top = sorted(phase["funcs"].items(), key=lambda x: (-x[1], x[0]))[:INSN_TOP]
    rec.setdefault("insn", {})[what] = {
        unit + "s": units, "total": phase["total"], "kernel": phase["kernel"],
        "groups": {g: round(n / units, 1) for g, n in sorted(phase["groups"].items())},
        "funcs": {f: round(n / units, 1) for f, n in top}}


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



def system_metrics(d, swap):
    """What every run records around its workload (the state before and
    after it in D): vmstat deltas, stalls, a cgroup's limit events, memory
    pressure, CPU time and context switches, zram's ratio (as loaded for a
    swap load, SWAP: swapoff empties zram; else after) and its asynchronous
    counters. Returns (metrics, vmstat delta, cpu_delta())."""
    m = {}
    before = vmstat(os.path.join(d, "vmstat.before"))
    after = vmstat(os.path.join(d, "vmstat.after"))
    delta = {k: after[k] - before[k] for k in after if k in before}
    for k in ("pswpin", "pswpout", "zswpin", "zswpout", "pgmajfault", "pgsteal_anon",
              "pgscan_anon", "pgsteal_file", "pgsteal_kswapd", "pgsteal_direct"):
        if k in delta:
            m["vmstat.%s" % k] = {"value": delta[k], "unit": "pages", "better": "none"}
    stalls = [v for k, v in delta.items() if k.startswith("allocstall_")]
    if stalls:
        m["vmstat.allocstall"] = {"value": sum(stalls), "unit": "stalls", "better": "none"}
    # Reclaim passes a cgroup's memory.max forced on its tasks (allocstall
    # counts global direct reclaim only).
    events = vmstat(os.path.join(d, "memcg-events"))
    if "max" in events:
        m["memcg.max_events"] = {"value": events["max"], "unit": "events", "better": "none"}
    for kind, v in psi_delta(os.path.join(d, "psi-memory.before"),
                             os.path.join(d, "psi-memory.after")).items():
        m["psi.memory_%s" % kind] = {"value": round(v, 3), "unit": "s", "better": "none"}
    # How busy all CPUs were over the run: whether a mode kept them working
    # or waited (an asynchronous pipeline that leaves CPUs idle).
    cpu = cpu_delta(os.path.join(d, "cpu.before"), os.path.join(d, "cpu.after"))
    if "ctxt" in cpu:
        m["sched.ctxt"] = {"value": cpu["ctxt"], "unit": "switches", "better": "none"}
    for kind in ("busy", "softirq"):
        if kind in cpu:
            m["cpu.%s" % kind] = {"value": round(cpu[kind], 1), "unit": "%", "better": "none"}
    if "busy_s" in cpu:
        m["cpu.busy_s"] = {"value": round(cpu["busy_s"], 2), "unit": "s", "better": "none"}
    loaded = read(os.path.join(d, "zram-mm_stat.loaded"))
    mm = (loaded if loaded is not None else
          "" if swap else read(os.path.join(d, "zram-mm_stat.after")) or "").split()
    if len(mm) >= 2 and int(mm[1]) > 0:
        m["zram.ratio"] = {"value": round(int(mm[0]) / int(mm[1]), 3), "unit": "x", "better": "higher"}
    st = (read(os.path.join(d, "zram-async_stat.after")) or "").split()
    if len(st) >= 5:
        m["zram.async_submitted"] = {"value": int(st[0]), "unit": "pages", "better": "none"}
        m["zram.async_peak_in_flight"] = {"value": int(st[3]), "unit": "requests", "better": "none"}
    return m, delta, cpu


def swap_load_metrics(d, rec, delta, cpu, secs):
    """What a swap load adds: who reclaimed (submitters), reclaim rates over
    its SECS of run time, the cost of a page swapped out (pswpout + zswpout)
    (one zram or zswap stored)."""
    m = rec["metrics"]
    # Who reclaims: the submitters of the swap load, or kswapd where no
    # cgroup limit makes the faulting tasks reclaim for themselves.
    if (read(os.path.join(d, "memory.max")) or "").strip() == "none":
        rec["submitters"] = "kswapd"
    # Reclaim rates over the workload's run time: all of it (the figure
    # published for moving compression out of kswapd), kswapd's, and the
    # rest, reclaim by the faulting tasks themselves. vmstat's pgsteal_direct
    # leaves out reclaim for a cgroup's memory.max, which pgsteal_anon and
    # pgsteal_file count: direct = anon + file - kswapd.
    if secs and "pgsteal_anon" in delta:
        steal = {"pgsteal_anon": delta["pgsteal_anon"]}
        if "pgsteal_kswapd" in delta and "pgsteal_file" in delta:
            steal["pgsteal_kswapd"] = delta["pgsteal_kswapd"]
            steal["pgsteal_direct"] = delta["pgsteal_anon"] + delta["pgsteal_file"] - delta["pgsteal_kswapd"]
        for k, v in steal.items():
            m["reclaim.%s_per_s" % k] = {"value": round(v / secs, 1), "unit": "pages/s", "better": "none"}
    pages = delta.get("pswpout", 0) + delta.get("zswpout", 0)
    m.update(per_page("swap", pages, cpu))
    insn_per_unit(rec, "swap", pages, insn_phases(d).get("swap"))


def fio_run(d, rec):
    """zram-fio: fio-JOB.json per job with the CPU state around it
    (cpu.JOB.*), or, in older runs, every job in one fio.json."""
    if rec["status"] == "ok" and os.path.isdir(d):
        for f in sorted(f for f in os.listdir(d) if re.match(r"^fio(-.+)?\.json$", f)):
            fio = read(os.path.join(d, f))
            rec["metrics"].update(fio_metrics(fio))
            counted = insn_phases(d)
            for job, pages in fio_pages(fio).items():
                rec["metrics"].update(per_page(job, pages, cpu_delta(
                    os.path.join(d, "cpu.%s.before" % job), os.path.join(d, "cpu.%s.after" % job))))
                insn_per_unit(rec, job, pages, counted.get("fio/" + job))
    rec["metrics"].update(system_metrics(d, False)[0])


def swap_run(d, rec):
    """zram-swap and zswap-swap: memstress's result line (memstress.txt;
    a mismatch or no result fails the record), the swap load and, for
    zswap, its counters."""
    ms = read(os.path.join(d, "memstress.txt"))
    system, delta, cpu = system_metrics(d, ms is not None)
    rec["metrics"].update(system)
    if rec["consumer"] == "zswap-swap":
        rec["metrics"].update(zswap_metrics(d))
    if ms is None:
        return
    kv = memstress_kv(ms)
    metrics, mismatches = memstress_metrics(ms)
    if mismatches is None or mismatches:
        rec["status"] = "memstress: %s" % ("no result line" if mismatches is None
                                           else "%d mismatches" % mismatches)
    rec["metrics"].update(metrics)
    if kv.get("procs"):
        rec["submitters"] = "%sp" % kv["procs"]
    swap_load_metrics(d, rec, delta, cpu, float(kv.get("elapsed_s", 0)))


SHMEM_METRICS = [("write", "write_s"), ("read", "read_s")]


def shmem_run(d, rec):
    """zram-shmem: its result line in shmem.txt ("shmem: files=N mib=M
    write_s=W read_s=R mismatches=K"): the MiB/s of writing the tmpfs files
    and of reading them back (checksummed), under the cgroup's limit; a
    mismatch or no result fails the record."""
    kv = {}
    for line in (read(os.path.join(d, "shmem.txt")) or "").splitlines():
        if line.startswith("shmem: ") and "mismatches=" in line:
            kv = dict(f.split("=", 1) for f in line.split()[1:] if "=" in f)
    system, delta, cpu = system_metrics(d, True)
    rec["metrics"].update(system)
    if not kv:
        rec["status"] = "shmem: no result line"
        return
    if kv["mismatches"] != "0":
        rec["status"] = "shmem: %s mismatches" % kv["mismatches"]
    mib = float(kv["mib"])
    for what, key in SHMEM_METRICS:
        if float(kv.get(key, 0)) > 0:
            rec["metrics"]["shmem.%s_mib_s" % what] = {
                "value": round(mib / float(kv[key]), 3), "unit": "MiB/s", "better": "higher"}
    rec["submitters"] = "1p"
    secs = sum(float(kv.get(key, 0)) for _, key in SHMEM_METRICS)
    swap_load_metrics(d, rec, delta, cpu, secs)


def pagebench_boot(outbox, rec):
    """pagebench: one record per algorithm of the boot (pagebench.txt), with
    the instructions per request (compress and decompress) of each depth's
    counted phase pagebench/ALG/dDEPTH."""
    text = read(os.path.join(outbox, "pagebench.txt")) or ""
    recs = pagebench_records(rec, text)
    counted = insn_phases(outbox)
    if counted:
        requests = {}
        for line in text.splitlines():
            kv = dict(f.split("=", 1) for f in line.split()[1:] if "=" in f)
            if line.startswith("pagebench: ") and kv.get("errors") == "0" and "requests" in kv:
                key = (kv.get("alg"), kv.get("depth"))
                requests[key] = requests.get(key, 0) + int(kv["requests"])
        for r in recs:
            for (alg, depth), n in sorted(requests.items()):
                if alg == r["algorithm"]:
                    insn_per_unit(r, "d%s" % depth, n, counted.get("pagebench/%s/d%s" % (alg, depth)),
                                  unit="request")
    return recs


# Guest scenario (bench/scenarios/NAME.sh, the matrix's GUEST column) ->
# (what its parser reads, parser): "runs": parser(DIR, record) fills the
# record of one algorithm's run from outbox/runs/N/; "boot": parser(OUTBOX,
# record) returns the records of the whole boot.
SCENARIOS = {
    "zram-fio": ("runs", fio_run),
    "zram-swap": ("runs", swap_run),
    "zswap-swap": ("runs", swap_run),
    "zram-shmem": ("runs", shmem_run),
    "pagebench": ("boot", pagebench_boot),
}

# Records from before the matrix named guest scenarios: by consumer.
LEGACY_GUEST = {"zram-block": "zram-fio", "zram-swap": "zram-swap", "zswap-swap": "zswap-swap",
                "pagebench": "pagebench"}
