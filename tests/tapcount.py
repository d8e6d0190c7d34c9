#!/usr/bin/env python3
"""Count the results of one test run of the guest.

    tapcount.py count RUNDIR TEST...   print every result, then "N passed, N failed"
    tapcount.py fixtures DIR           check the parsers against golden fixtures

RUNDIR is what qemu-images/run.sh left: console.log, status, and outbox/tap/
with NAME.tap, NAME.rc for each in-guest test script. TEST names the scripts
that were asked for: one that left no results failed. KUnit results (KTAP,
one result per test case) are read from the console for built-in suites and
from outbox/ktap/SUITE.ktap for suites a guest script loaded as a module. A
skipped test counts as failed: a test that cannot run has not passed.
"""

import os
import re
import sys

TS = re.compile(r"^\[\s*\d+\.\d+\]\s?")
RESULT = re.compile(r"^(not ok|ok)\b\s*(\d+)?\s*(?:-\s*)?(.*?)\s*$")
PLAN = re.compile(r"^1\.\.(\d+)")


def result_line(text):
    """(passed, description) for a TAP result line, or None."""
    m = RESULT.match(text)
    if not m:
        return None
    desc, directive = m.group(3), ""
    if desc.startswith("# "):
        desc, directive = "", desc[2:]
    elif " # " in desc:
        desc, directive = desc.split(" # ", 1)
    passed = m.group(1) == "ok"
    if re.match(r"(?i)(skip|todo)", directive.strip()):
        passed = False
        desc += " [" + directive.strip() + "]"
    return passed, desc


def parse_tap(name, text, rc):
    """Results of one in-guest script: list of (passed, description)."""
    out = []
    plan = None
    for line in text.splitlines():
        r = result_line(line)
        if r:
            out.append((r[0], "%s: %s" % (name, r[1])))
            continue
        m = PLAN.match(line)
        if m:
            plan = int(m.group(1))
    if plan is None:
        out.append((False, "%s: no TAP plan, the script ended early (exit %s)" % (name, rc)))
    elif plan != len(out):
        out.append((False, "%s: planned %d results, printed %d" % (name, plan, len(out))))
    if rc is not None and rc != 0 and all(p for p, _ in out):
        why = "timed out" if rc in (124, 143) else "exited with status %d" % rc
        out.append((False, "%s: %s without a failing result" % (name, why)))
    return out


def parse_ktap(console):
    """KUnit results from a console log: one per test case, plus suite-level
    failures (a suite that failed with no case results, or planned cases that
    never reported). Only the part before the guest's /init is read."""
    out = []
    top_plan = None
    suites_seen = 0
    suite = None
    case_plan = 0
    cases = []
    in_ktap = False
    for raw in console.splitlines():
        line = TS.sub("", raw.rstrip("\r"))
        if line.startswith("ACOMP: init"):
            break
        stripped = line.lstrip(" ")
        depth = (len(line) - len(stripped)) // 4
        if stripped.startswith(("KTAP version", "TAP version")) and depth == 0:
            in_ktap = True
            continue
        if not in_ktap:
            continue
        if depth == 1 and stripped.startswith("# Subtest:"):
            suite = stripped.split(":", 1)[1].strip()
            cases = []
            case_plan = 0
            continue
        m = PLAN.match(stripped)
        if m:
            if depth == 0 and top_plan is None:
                top_plan = int(m.group(1))
            elif depth == 1:
                case_plan = int(m.group(1))
            continue
        r = result_line(stripped)
        if not r:
            continue
        if depth == 1 and suite:
            cases.append(r)
            out.append((r[0], "kunit %s: %s" % (suite, r[1])))
        elif depth == 0:
            suites_seen += 1
            if not r[0] and not any(not p for p, _ in cases):
                out.append((False, "kunit %s: suite failed" % r[1]))
            if len(cases) < case_plan:
                out.append((False, "kunit %s: %d cases planned, %d reported"
                            % (r[1], case_plan, len(cases))))
            suite = None
            cases = []
            case_plan = 0
    if suite is not None:
        out.append((False, "kunit %s: suite did not finish (kernel crashed?)" % suite))
    if top_plan is not None and suites_seen < top_plan:
        out.append((False, "kunit: %d suites planned, %d reported" % (top_plan, suites_seen)))
    return out


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return None


def count(rundir, tests):
    results = []
    status = (read(os.path.join(rundir, "status")) or "no status: the runner did not finish").strip()
    console = read(os.path.join(rundir, "console.log")) or ""
    results.append((status == "ok", "run: the guest ran its job, powered off, and the console is clean"
                    + ("" if status == "ok" else " -- " + status)))
    results.extend(parse_ktap(console))
    ktapdir = os.path.join(rundir, "outbox", "ktap")
    if os.path.isdir(ktapdir):
        for f in sorted(os.listdir(ktapdir)):
            if f.endswith(".ktap"):
                results.extend(parse_ktap(read(os.path.join(ktapdir, f)) or ""))
    tapdir = os.path.join(rundir, "outbox", "tap")
    for name in tests:
        text = read(os.path.join(tapdir, name + ".tap"))
        if text is None:
            results.append((False, "%s: no results (did not run, or the guest crashed or hung before writing them)" % name))
            continue
        rc = read(os.path.join(tapdir, name + ".rc"))
        results.extend(parse_tap(name, text, int(rc) if rc and rc.strip().isdigit() else None))
    passed = sum(1 for p, _ in results if p)
    failed = len(results) - passed
    for p, desc in results:
        print("%s %s" % ("  ok  " if p else "  FAIL", desc))
    return passed, failed


def fixtures(d):
    """Each fixture X.console (KTAP) or X.tap (script TAP, exit status in the
    first line '# rc N') has X.expected: the lines count() would print."""
    results = []
    for f in sorted(os.listdir(d)):
        base, ext = os.path.splitext(f)
        if ext not in (".console", ".tap"):
            continue
        text = read(os.path.join(d, f))
        if ext == ".console":
            got = parse_ktap(text)
        else:
            m = re.match(r"# rc (\d+)", text)
            got = parse_tap(base, text, int(m.group(1)) if m else 0)
        got_lines = ["%s %s" % ("ok" if p else "FAIL", desc) for p, desc in got]
        want = (read(os.path.join(d, base + ".expected")) or "").splitlines()
        same = got_lines == want
        results.append((same, "parser fixture %s" % f))
        if not same:
            print("# %s: got:\n#   %s\n# expected:\n#   %s"
                  % (f, "\n#   ".join(got_lines), "\n#   ".join(want)))
    return results


def main(argv):
    if len(argv) >= 3 and argv[1] == "count":
        passed, failed = count(argv[2], argv[3:])
        print("%d passed, %d failed" % (passed, failed))
        return 0 if failed == 0 and passed > 0 else 1
    if len(argv) == 3 and argv[1] == "fixtures":
        res = fixtures(argv[2])
        for i, (p, desc) in enumerate(res, 1):
            print("%s %d - %s" % ("ok" if p else "not ok", i, desc))
        print("1..%d" % len(res))
        return 0 if res and all(p for p, _ in res) else 1
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
