#!/usr/bin/env python3
"""Statistics and comparisons over records: medians by kernel, the
summary's tables, "when does asynchronous compression pay" (acompd(X)
against X in the same boots), and the verdicts of make compare (absolute,
or on each run's kernel/control pair ratios)."""

import re
import statistics

from records import load_facts, load_records

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
# Columns of swap loads other than memstress's, shown only when a row has
# them (zram-shmem: tmpfs pages written and read back).
PAYS_SWAP_OPTIONAL = [("shmem.write_mib_s", "shmem write MiB/s"), ("shmem.read_mib_s", "shmem read MiB/s"),
                      ("swap.kinsn_per_page", "kinsn/page")]


PAYS_FIO_JOBS = ["seqwrite-64k", "randwrite-4k", "randread-4k", "randwrite-4k-qd16",
                 "randwrite-4k-qd16-batch"]


PAYS_FIO = [("bw", "MiB/s"), ("cpu_us_per_page", "CPU us/page"), ("ctxt_per_page", "ctxt/page")]
# Shown only when a row has them (runs counted by the plugin).
PAYS_FIO_OPTIONAL = [("kinsn_per_page", "kinsn/page")]


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
                             pays_pairs(g, scen, cons, alg, PAYS_SWAP + PAYS_SWAP_OPTIONAL, kernel)))
            elif cons == "zram-block":
                for i, job in enumerate(PAYS_FIO_JOBS):
                    pairs = pays_pairs(g, scen, cons, alg, [("%s.%s" % (job, m), c)
                                                            for m, c in PAYS_FIO + PAYS_FIO_OPTIONAL], kernel)
                    if any(p for _, p in pairs):
                        fio.append(((scen, i, x), [scen, job, shape, x], pairs))
    if not swap and not fio:
        return []
    # An optional column no row has is left out.
    def keep(rows, optional):
        drop = {c for _, c in optional if not any(p for _, _, pairs in rows for col, p in pairs if col == c)}
        return [(k, labels, [(c, p) for c, p in pairs if c not in drop]) for k, labels, pairs in rows]
    swap = keep(swap, PAYS_SWAP_OPTIONAL)
    fio = keep(fio, PAYS_FIO_OPTIONAL)
    out = ["", "## When does asynchronous compression pay%s" % (": %s kernel" % kernel if name_it else ""), "",
           "acompd(X) against X on the %s kernel, measured in the same boots. Ratios are " % kernel +
           "acompd median / sync median: above 1 favours acompd for throughput (pages/s, MiB/s), "
           "below 1 for latency and cost (fault p50/p99, CPU us and context switches per page: "
           "swap, per page swapped out, pswpout + zswpout; fio, per 4 KiB page read or written). "
           "Reclaim rates and stalls are context: kswapd's share against the faulting tasks' "
           "(direct: pgsteal_anon + pgsteal_file - pgsteal_kswapd, memory.max reclaim included); "
           "allocstalls count global direct reclaim, memory.max events a cgroup's limit reclaim."]
    if any(c == "kinsn/page" for _, _, pairs in swap + fio for c, _ in pairs):
        out[-1] += (" kinsn/page: guest kernel instructions per page, counted by the TCG plugin "
                    "(deterministic; bench/README.md, Instruction counts).")
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


# The noise floors of instruction counts per page or request, from an A/A
# run (results/2026-12-06-insn-aa: the patched kernel, 5 boots each of
# zram-fio 4 KiB random write and read and zram-swap-1p). Kernel
# instructions (*.kinsn_per_*) spread at most 0.29% (max-min over median):
# a floor of 1%. All instructions (*.insn_per_*) include user space, where
# fio's own work varies with timing (4.5% on random reads): a floor of 5%.
KINSN_NOISE = 0.01
INSN_NOISE = 0.05


def is_insn(metric):
    return re.search(r"\.k?insn_per_", metric) is not None


def noise_of(metric, noise):
    """Instruction counts have their own, measured, noise floors."""
    if re.search(r"\.kinsn_per_", metric):
        return KINSN_NOISE
    return INSN_NOISE if is_insn(metric) else noise


def verdict_counts(verdicts):
    """The line that splits regressions by instrument, when a run has
    instruction counts: [(metric, verdict)] -> lines."""
    insn = [v for m, v in verdicts if is_insn(m)]
    if not insn:
        return []
    return ["instruction counts: %d regression(s) of %d compared (noise floor %g kernel, %g all); "
            "time and the rest: %d of %d" % (
        insn.count("REGRESSION"), len(insn), KINSN_NOISE, INSN_NOISE,
        sum(v == "REGRESSION" for m, v in verdicts if not is_insn(m)),
        sum(1 for m, _ in verdicts if not is_insn(m)))]


def counted_note(a, b):
    """A note when one run was counted by the instruction-counting plugin
    and the other not: the plugin slows the guest, so their times differ
    by its overhead, not by the kernels."""
    def insn(d):
        facts = load_facts(d)
        return "insn" in facts and not facts["insn"].startswith("off")
    ia, ib = insn(a), insn(b)
    if ia == ib:
        return []
    return ["note: %s was counted by the instruction-counting plugin and %s not: the plugin slows "
            "the guest about 2x (bench/README.md, Instruction counts), so time verdicts between "
            "them measure the plugin; compare runs made alike" % ((a, b) if ia else (b, a))]


def compare(a, b, noise=0.03):
    """Ratios of B against A per metric and kernel. A change is flagged when
    the median moves by more than the noise floor (instruction counts: their
    own, INSN_NOISE) and the two runs' min-max ranges do not overlap; a
    flagged change in the bad direction is a regression."""
    ga, ua = group(load_records(a))
    gb, _ = group(load_records(b))
    # Two runs of one kernel each, different ones (base against a variant
    # of it): that pair, named A->B.
    ka = {k for v in ga.values() for k in v}
    kb = {k for v in gb.values() for k in v}
    if len(ka) == 1 and len(kb) == 1 and ka != kb:
        name = "%s->%s" % (min(ka), min(kb))
        ga = {key: {name: v[min(ka)]} for key, v in ga.items()}
        gb = {key: {name: v[min(kb)]} for key, v in gb.items()}
    for line in counted_note(a, b):
        print(line)
    regressions = 0
    names = ["/".join(k) for k in set(ga) & set(gb)]
    width = max([len(n) for n in names] + [6])
    kw = max([len(k) for v in ga.values() for k in v] + [8])
    print("%-*s %-*s %12s %12s %7s  %s" % (width, "metric", kw, "kernel", "A median", "B median", "B/A", "verdict"))
    verdicts = []
    for key in sorted(set(ga) & set(gb)):
        unit, better = ua[key]
        if better == "none":
            continue
        for kernel in sorted(set(ga[key]) & set(gb[key])):
            ma, mb, ratio, verdict = judge(ga[key][kernel], gb[key][kernel], better, noise_of(key[4], noise))
            regressions += verdict == "REGRESSION"
            verdicts.append((key[4], verdict))
            print("%-*s %-*s %12s %12s %7.3f  %s" % (width, "/".join(key), kw, kernel, fmt(ma), fmt(mb), ratio,
                                                     verdict))
    for line in verdict_counts(verdicts):
        print(line)
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
    for line in counted_note(a, b):
        print(line)
    keys = sorted(set(ra) & set(rb))
    kernels = sorted({k for _, k in keys})
    label = {key: "/".join(key[0]) + ("" if len(kernels) == 1 else " [%s]" % key[1]) for key in keys}
    regressions = 0
    width = max([len(n) for n in label.values()] + [6])
    print("%s pair ratios of each run (the %s kernel as control)" % (
        ", ".join("%s/%s" % (k, ca) for k in kernels) or "no", ca))
    print("%-*s %10s %10s %7s  %s" % (width, "metric", "A ratio", "B ratio", "B/A", "verdict"))
    verdicts = []
    for key in keys:
        better = ua[key[0]][1]
        ma, mb, ratio, verdict = judge(ra[key], rb[key], better, noise_of(key[0][4], noise))
        regressions += verdict == "REGRESSION"
        verdicts.append((key[0][4], verdict))
        print("%-*s %10.3f %10.3f %7.3f  %s" % (width, label[key], ma, mb, ratio, verdict))
    for line in verdict_counts(verdicts):
        print(line)
    print("%d regression(s)" % regressions)
    return 1 if regressions else 0



def median(vals):
    vals = sorted(vals)
    n = len(vals)
    return (vals[n // 2] + vals[(n - 1) // 2]) / 2 if n else None


def profile_lines(recs, top=15):
    """Per-function differences of kernel instructions per unit (page or
    request) between two sides of a run's counted phases: two kernels
    (the control and each other) for each mode, or, on one kernel, each
    acompd(X) against X. Medians over repetitions; a function outside one
    side's recorded top (parse.INSN_TOP) counts 0 there, marked "<"."""
    side = {}
    for r in recs:
        if r["status"] != "ok":
            continue
        for what, ph in (r.get("insn") or {}).items():
            key = (r["scenario"], what)
            s = side.setdefault(key, {}).setdefault((r["kernel"], r["algorithm"]), [])
            s.append(ph)
    kernels = kernel_order(recs)
    out = []
    for (scen, what), sides in sorted(side.items()):
        pairs = []
        if len(kernels) > 1:
            for alg in sorted({a for _, a in sides}):
                for k in kernels[1:]:
                    if (kernels[0], alg) in sides and (k, alg) in sides:
                        pairs.append(((kernels[0], alg), (k, alg)))
        else:
            for k, alg in sorted(sides):
                x = alg[len("acompd("):-1] if alg.startswith("acompd(") else None
                if x and (k, x) in sides:
                    pairs.append(((k, x), (k, alg)))
        for a, b in pairs:
            out += profile_pair(scen, what, a, sides[a], b, sides[b], top)
    return out


def profile_pair(scen, what, a, pa, b, pb, top):
    unit = "request" if "requests" in pa[0] else "page"

    def per(phs, part):
        names = {n for ph in phs for n in ph[part]}
        return {n: median([ph[part].get(n, 0) for ph in phs]) for n in names}, names

    ka = median([ph["kernel"] / ph[unit + "s"] for ph in pa])
    kb = median([ph["kernel"] / ph[unit + "s"] for ph in pb])
    out = ["", "## %s %s: %s %s against %s %s (kernel instructions per %s, median of %d and %d)" % (
        scen, what, b[0], b[1], a[0], a[1], unit, len(pb), len(pa)), "",
        "total: %.0f -> %.0f (%+.0f, %+.2f%%)" % (ka, kb, kb - ka, 100 * (kb - ka) / ka if ka else 0), "",
        "| group | %s | %s | change |" % ("/".join(a), "/".join(b)), "|---|---|---|---|"]
    ga, _ = per(pa, "groups")
    gb, _ = per(pb, "groups")
    for g in sorted(set(ga) | set(gb), key=lambda g: -abs(gb.get(g, 0) - ga.get(g, 0))):
        out.append("| %s | %.0f | %.0f | %+.0f |" % (g, ga.get(g, 0), gb.get(g, 0), gb.get(g, 0) - ga.get(g, 0)))
    fa, na = per(pa, "funcs")
    fb, nb = per(pb, "funcs")
    floor_a = min((min(ph["funcs"].values()) for ph in pa if ph["funcs"]), default=0)
    floor_b = min((min(ph["funcs"].values()) for ph in pb if ph["funcs"]), default=0)
    out += ["", "| function | %s | %s | change |" % ("/".join(a), "/".join(b)), "|---|---|---|---|"]
    rows = sorted(set(fa) | set(fb), key=lambda f: (-abs(fb.get(f, 0) - fa.get(f, 0)), f))[:top]
    for f in rows:
        va = "%.0f" % fa[f] if f in na else "<%.0f" % floor_a
        vb = "%.0f" % fb[f] if f in nb else "<%.0f" % floor_b
        out.append("| %s | %s | %s | %+.0f |" % (f, va, vb, fb.get(f, 0) - fa.get(f, 0)))
    return out
