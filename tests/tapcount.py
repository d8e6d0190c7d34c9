#!/usr/bin/env python3
"""Count the results of one test run of the guest.

    tapcount.py count RUNDIR TEST...   print every result, then "N passed, N failed"
    tapcount.py fixtures DIR           check the parsers against golden fixtures
    tapcount.py host DIR NAME...       host checks' DIR/NAME.{tap,rc}: every result, then the count
    tapcount.py results NAME TAP RC    one producer's results, "ok|FAIL description"

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
    """(passed, description, number) for a TAP result line, or None. A
    directive is whatever follows the first "#" of the description, with or
    without spaces around it; SKIP and TODO make a result fail."""
    m = RESULT.match(text)
    if not m:
        return None
    desc, directive = m.group(3), ""
    if "#" in desc:
        desc, directive = desc.split("#", 1)
        desc = desc.rstrip()
    passed = m.group(1) == "ok"
    if re.match(r"(?i)\s*(skip|todo)", directive):
        passed = False
        desc += " [" + directive.strip() + "]"
    elif directive:
        desc += " #" + directive
    return passed, desc, int(m.group(2)) if m.group(2) else None


def parse_tap(name, text, rc):
    """Results of one TAP producer (an in-guest script or a host check):
    list of (passed, description). The producer fails when its plan is
    missing, repeated, empty or disagrees with the results printed, when a
    test number is repeated, out of order or outside the plan, and when its
    exit status is missing (rc None) or non-zero."""
    out = []
    plans = []
    numbers = []
    for line in text.splitlines():
        r = result_line(line)
        if r:
            out.append((r[0], "%s: %s" % (name, r[1])))
            numbers.append(r[2])
            continue
        m = PLAN.match(line)
        if m:
            plans.append(int(m.group(1)))
    plan = plans[-1] if plans else None
    if plan is None:
        out.append((False, "%s: no TAP plan, the script ended early (exit %s)" % (name, rc)))
    elif len(plans) > 1:
        out.append((False, "%s: %d TAP plans (%s): one producer, one plan"
                    % (name, len(plans), ", ".join("1..%d" % p for p in plans))))
    elif plan == 0:
        out.append((False, "%s: planned no results (1..0)" % name))
    elif plan != len(out):
        out.append((False, "%s: planned %d results, printed %d" % (name, plan, len(out))))
    if any(n is None for n in numbers):
        out.append((False, "%s: %d results without a test number"
                    % (name, sum(1 for n in numbers if n is None))))
    else:
        seen = set()
        for i, n in enumerate(numbers, 1):
            if n in seen:
                out.append((False, "%s: test number %d repeated" % (name, n)))
            elif plan is not None and not 1 <= n <= plan:
                out.append((False, "%s: test number %d outside the plan 1..%d" % (name, n, plan)))
            elif n != i:
                out.append((False, "%s: test number %d where %d was due" % (name, n, i)))
            seen.add(n)
    if rc is None:
        out.append((False, "%s: no exit status recorded" % name))
    elif rc != 0 and all(p for p, _ in out):
        why = "timed out" if rc in (124, 143) else "exited with status %d" % rc
        out.append((False, "%s: %s without a failing result" % (name, why)))
    return out


def parse_ktap(console):
    """KUnit results from a console log: one per test case, plus suite-level
    failures (a suite that failed with no case results, a suite without a
    case plan, or planned cases that never reported). Only the part before
    the guest's /init is read."""
    out = []
    top_plan = None
    suites_seen = 0
    suite = None
    case_plan = None
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
            case_plan = None
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
            if not r[0] and all(c[0] for c in cases):
                out.append((False, "kunit %s: suite failed" % r[1]))
            if case_plan is None:
                out.append((False, "kunit %s: no case plan, so no case count"
                            % r[1]))
            elif len(cases) != case_plan:
                out.append((False, "kunit %s: %d cases planned, %d reported"
                            % (r[1], case_plan, len(cases))))
            suite = None
            cases = []
            case_plan = None
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


def read_rc(path):
    """The exit status in PATH, or None when it is missing or not a number."""
    rc = (read(path) or "").strip()
    return int(rc) if rc.isdigit() else None


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
    results.extend(producers(os.path.join(rundir, "outbox", "tap"), tests))
    return report(results)


def producers(tapdir, tests):
    """The results of the TAP producers TESTS, from TAPDIR/NAME.{tap,rc}."""
    results = []
    for name in tests:
        text = read(os.path.join(tapdir, name + ".tap"))
        if text is None:
            results.append((False, "%s: no results (did not run, or the guest crashed or hung before writing them)" % name))
            continue
        results.extend(parse_tap(name, text, read_rc(os.path.join(tapdir, name + ".rc"))))
    return results


def report(results):
    """Print every result; (passed, failed)."""
    passed = sum(1 for p, _ in results if p)
    failed = len(results) - passed
    for p, desc in results:
        print("%s %s" % ("  ok  " if p else "  FAIL", desc))
    return passed, failed


def fixtures(d):
    """Each fixture X.console (KTAP) or X.tap (script TAP, exit status in the
    first line: '# rc N', or '# rc none' for a producer that left none) has
    X.expected: the lines count() would print."""
    results = []
    for f in sorted(os.listdir(d)):
        base, ext = os.path.splitext(f)
        if ext not in (".console", ".tap"):
            continue
        text = read(os.path.join(d, f))
        if ext == ".console":
            got = parse_ktap(text)
        else:
            m = re.match(r"# rc (\d+|none)\n", text)
            if not m:
                results.append((False, "parser fixture %s: no '# rc N' line" % f))
                continue
            got = parse_tap(base, text, None if m.group(1) == "none" else int(m.group(1)))
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
    if len(argv) >= 4 and argv[1] == "host":
        passed, failed = report(producers(argv[2], argv[3:]))
        print("%d passed, %d failed" % (passed, failed))
        return 0 if failed == 0 and passed > 0 else 1
    if len(argv) == 5 and argv[1] == "results":
        text = read(argv[3])
        got = (parse_tap(argv[2], text, read_rc(argv[4])) if text is not None
               else [(False, "%s: no results (%s is missing)" % (argv[2], argv[3]))])
        for p, desc in got:
            print("%s %s" % ("ok" if p else "FAIL", desc))
        return 0 if all(p for p, _ in got) else 1
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
