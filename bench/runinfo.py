#!/usr/bin/env python3
"""The identity of a benchmark boot: its run.json.

    runinfo.py write RAWDIR KEY=VALUE...   write RAWDIR/run.json (bench.sh,
                                           after the boot): the given fields,
                                           the boot's QEMU command line and
                                           accelerator (run.sh's qemu-cmdline
                                           and accel), QEMU's version and the
                                           host's facts
    runinfo.py show RAWDIR                 the identity the report reads

Fields bench.sh gives: scenario, guest_scenario, consumer, kernel,
kernel_role, kernel_source, kernel_release, rep, modes (comma separated),
args, vcpus, mem, disk, insn (whether the plugin counted the boot), label.
The report (bench/report.py) reads run.json and
never the directory's name, except through legacy_identity() for runs
recorded before run.json existed (results/ up to 2026-12-05).
"""

import json
import os
import pathlib
import re
import sys

SCHEMA = 1
INTS = ("rep", "vcpus")


def read(path):
    """A file's text, or None when it does not exist."""
    return pathlib.Path(path).read_text(encoding="utf-8", errors="replace") if os.path.isfile(path) else None


def host_facts():
    cpu = next((line.split(":", 1)[1].strip() for line in (read("/proc/cpuinfo") or "").splitlines()
                if line.startswith("model name")), "")
    mem = next((int(line.split()[1]) for line in (read("/proc/meminfo") or "").splitlines()
                if line.startswith("MemTotal:")), 0)
    return {"cpu": cpu, "cpus": os.cpu_count(), "mem_kib": mem}


def write(rawdir, fields):
    run = {"schema": SCHEMA}
    for kv in fields:
        k, sep, v = kv.partition("=")
        if not sep or not re.match(r"^[a-z_]+$", k):
            raise SystemExit("runinfo.py write: '%s': want KEY=VALUE" % kv)
        run[k] = int(v) if k in INTS else v
    run["modes"] = [m for m in run.get("modes", "").split(",") if m and m != "-"]
    cmdline = (read(os.path.join(rawdir, "qemu-cmdline")) or "").strip()
    accel = (read(os.path.join(rawdir, "accel")) or "").strip()
    run["qemu_cmdline"] = cmdline or None
    run["accelerator"] = accel.split(" ", 1)[0] if accel else None
    run["accelerator_why"] = accel.split(" ", 1)[1] if " " in accel else None
    run["qemu"] = (read(os.path.join(rawdir, "qemu-version")) or "").strip() or None
    run["host"] = host_facts()
    os.makedirs(rawdir, exist_ok=True)
    with open(os.path.join(rawdir, "run.json"), "w", encoding="utf-8") as f:
        json.dump(run, f, indent=1, sort_keys=True)
        f.write("\n")
    return 0


# Runs recorded before run.json: the directory's name is the identity, and
# these are the rules the report applied to it.
LEGACY_NAME = re.compile(r"^(?P<scenario>[a-z0-9-]+?)-(?P<kernel>base|patched|debug)-(?P<alg>.+)-r(?P<rep>\d+)$")
LEGACY_ROLES = {"base": "control", "patched": "candidate", "debug": "test"}


def legacy_identity(name):
    """The identity of a legacy raw directory NAME (SCENARIO-KERNEL-ALG-rREP),
    or None. Its consumer is None: legacy_consumer() decides from what the
    boot left."""
    m = LEGACY_NAME.match(name)
    if not m:
        return None
    return {"schema": 0, "scenario": m["scenario"], "kernel": m["kernel"],
            "kernel_role": LEGACY_ROLES[m["kernel"]], "consumer": None,
            "rep": int(m["rep"]), "modes": [] if m["alg"] == "all" else [m["alg"]],
            "legacy_alg": m["alg"]}


def legacy_consumer(scenario, swap):
    """A legacy record's consumer: pagebench by name, a swap load (memstress
    ran) zswap by the scenario's name prefix else zram, else zram's block
    device."""
    if scenario == "pagebench":
        return "pagebench"
    if swap:
        return "zswap-swap" if scenario.startswith("zswap") else "zram-swap"
    return "zram-block"


def identity(rawdir):
    """A raw boot directory's identity: its run.json, else the legacy one
    from its name, else None (not a boot of a bench run)."""
    text = read(os.path.join(rawdir, "run.json"))
    if text is not None:
        return json.loads(text)
    return legacy_identity(os.path.basename(rawdir.rstrip("/")))


def main(argv):
    if len(argv) >= 3 and argv[1] == "write":
        return write(argv[2], argv[3:])
    if len(argv) == 3 and argv[1] == "show":
        print(json.dumps(identity(argv[2]), indent=1, sort_keys=True))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
