#!/usr/bin/env python3
"""Plots of a summarized run (gnuplot PNGs beside summary.md, their data and
scripts under plots/): throughput, latency percentiles, compression ratio."""

import os
import re
import statistics
import subprocess

from records import load_records
from stats import async_kernels, control_kernel, group, kernel_order

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

