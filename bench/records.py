#!/usr/bin/env python3
"""Records: one per algorithm run in a boot of a benchmark run.

A raw run directory (raw/*/, or raw.tar.xz: bench/rawstore.py) holds what
qemu-images/run.sh collected (status, console.log, outbox/) and the boot's
identity, run.json (bench/runinfo.py); runs recorded before run.json are
read by the one legacy reader there. The identity names the guest scenario,
whose parser (bench/parse.py) reads the outbox. The record schema is
documented in bench/README.md.
"""

import json
import os

import parse
import rawstore
import runinfo
from parse import read

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
    guest = ident.get("guest_scenario")
    if guest is None and (rec["consumer"] or runinfo.legacy_consumer(rec["scenario"], False)) == "pagebench":
        guest = "pagebench"
    if guest not in parse.SCENARIOS and guest is not None:
        return [dict(rec, status="no parser for guest scenario %s (bench/parse.py SCENARIOS)" % guest)]
    if guest is not None and parse.SCENARIOS[guest][0] == "boot":
        rec["consumer"] = rec["consumer"] or "pagebench"
        return parse.SCENARIOS[guest][1](os.path.join(d, "outbox"), rec) if status == "ok" else [rec]
    runs = os.path.join(d, "outbox", "runs")
    if os.path.isdir(runs):
        return [r for n in sorted(os.listdir(runs), key=int)
                for r in alg_record(rec, os.path.join(runs, n), status, guest)]
    if not ident.get("legacy_alg"):
        return [dict(rec, consumer=rec["consumer"] or runinfo.legacy_consumer(rec["scenario"], False),
                     status=status if status != "ok" else "no results in outbox/runs")]
    # Older runs: one algorithm per boot, its files at the top of the outbox.
    return alg_record(rec, os.path.join(d, "outbox"), status, guest, alg=alg, status="ok")


def alg_record(base, d, boot_status, guest, alg=None, status=None):
    """The record of one algorithm's run inside a boot (outbox/runs/N/, or
    the outbox itself for runs with one algorithm, given with its status),
    read by the parser of its guest scenario GUEST (parse.SCENARIOS)."""
    alg = alg or (read(os.path.join(d, "algorithm")) or "?").strip()
    status = status or (read(os.path.join(d, "status")) or "missing").strip()
    if status.startswith("not available"):
        return []
    if boot_status != "ok":
        status = boot_status
    rec = dict(base, algorithm=alg, mode="async" if alg.startswith("acompd(") else "sync",
               status=status, metrics={})
    if rec["consumer"] is None:
        rec["consumer"] = runinfo.legacy_consumer(rec["scenario"],
                                                  os.path.exists(os.path.join(d, "memstress.txt")))
    guest = guest or parse.LEGACY_GUEST[rec["consumer"]]
    parse.SCENARIOS[guest][1](d, rec)
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

