#!/usr/bin/env python3
"""Guest instruction counts (bench/plugin/insncount.c), from block start
addresses to kernel functions and subsystem groups.

  insn.py resolve KDIR BOOTDIR
      BOOTDIR/insn-sites.txt (the plugin's output) with the kernel's
      System.map (KDIR, a kernel build directory), the guest's anchor of
      where its text was placed (outbox/insn-anchor: KASLR) and its
      modules' symbols (outbox/insn-modsyms) -> insn.txt of every counted
      phase: a phase labelled runs/N/REST goes to outbox/runs/N/insn.txt as
      REST, any other to outbox/insn.txt. The sites file is kept compressed
      (insn-sites.txt.gz), which resolve reads as well.
  insn.py groups KDIR
      the symbol -> group table of a kernel, for reading.
  insn.py selftest DIR
      resolve on a fixture (DIR/kdir, DIR/boot) against DIR/expected (TAP).

insn.txt, per phase:
  phase LABEL TOTAL KERNEL          instructions of all vCPUs, all and kernel
  group LABEL GROUP COUNT           kernel instructions per subsystem group
  func LABEL FUNCTION COUNT         per function, those of at least 0.01% of
                                    the phase's kernel instructions (the
                                    rest in the pseudo-function "(small)";
                                    the blocks the plugin's site table had
                                    no room for in "(unsited)"): they sum
                                    to KERNEL
  skew LABEL N                      the vCPUs' kernel counters over the
                                    phase less KERNEL: what other vCPUs ran
                                    while the plugin read its counters, on
                                    one side of the boundary or the other

Groups come from where a function is defined: the object file linked into
vmlinux that defines it (nm), matched against GROUPS in order; "ambiguous"
for a static name defined in objects of different groups, "module" for a
loaded module's function, "other" for the rest.
"""

import bisect
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile

# (group, object path prefixes) in order: the first match names the group.
GROUPS = [
    ("zram", ("drivers/block/zram/",)),
    ("zsmalloc", ("mm/zsmalloc.o",)),
    ("zswap", ("mm/zswap.o", "mm/zpool.o", "mm/zbud.o", "mm/z3fold.o")),
    ("acompd", ("crypto/acompd",)),
    ("crypto", ("crypto/",)),
    ("lz4", ("lib/lz4/",)),
    ("zstd", ("lib/zstd/",)),
    ("lzo", ("lib/lzo/",)),
    ("reclaim+swap", ("mm/vmscan.o", "mm/swap", "mm/page_io.o", "mm/rmap.o",
                      "mm/workingset.o", "mm/memcontrol.o", "mm/vmpressure.o")),
    ("mm", ("mm/",)),
    ("block", ("block/",)),
    ("sched+wq", ("kernel/sched/", "kernel/workqueue.o", "kernel/kthread.o")),
    ("irq+timer", ("kernel/irq/", "kernel/time/", "kernel/softirq.o", "arch/x86/kernel/apic/",
                   "arch/x86/kernel/irq", "arch/x86/kernel/tsc", "drivers/clocksource/")),
    ("locking", ("kernel/locking/",)),
    ("entry+lib", ("arch/x86/entry/", "arch/x86/lib/", "lib/")),
    ("fs", ("fs/",)),
]
OTHER = "other"
AMBIGUOUS = "ambiguous"
MODULE_GROUP = "module"
UNSITED = "(unsited)"
# Section and region markers: labels at the address of a real function
# (__softirqentry_text_start is __do_softirq's), never a function.
MARKER = re.compile(r"^(_text|_stext|_etext|_sinittext|_einittext|__.*_text_(start|end)|__(start|stop)_.*)$")
# The first line of a kernel's cached group table (KDIR/insn-groups.txt):
# a table of another version, or of another way of finding groups, is made
# again.
CACHE_VERSION = "# insn-groups 3: objects linked into vmlinux, strong over weak"
SMALL = 1e-4
TEXT = set("tTwW")


def group_of(path):
    for name, prefixes in GROUPS:
        if path.startswith(prefixes):
            return name
    return OTHER


def archive_members(kdir, archive, seen):
    """The object files a (thin) archive of the kernel build links, paths
    relative to KDIR (GNU ar prints a thin archive's members relative to the
    directory it runs in); archives inside it are followed."""
    out = subprocess.run(["ar", "t", archive], cwd=kdir, capture_output=True,
                         text=True, check=True).stdout
    objs = []
    for m in out.split():
        path = os.path.relpath(m, kdir) if os.path.isabs(m) else os.path.normpath(m)
        if path in seen:
            continue
        seen.add(path)
        if not os.path.exists(os.path.join(kdir, path)):
            raise OSError("%s: member %s of %s is missing" % (kdir, path, archive))
        if path.endswith(".a"):
            objs += archive_members(kdir, path, seen)
        elif path.endswith(".o"):
            objs.append(path)
    return objs


def linked_objects(kdir):
    """The objects linked into vmlinux: vmlinux.a (5.19 and later) or else
    every built-in.a of the build (a directory's archive is in its parent's,
    so the members are the same, each once), and the lib.a libraries.
    Nothing else (arch/x86/boot's own memcpy, say, is never in vmlinux)."""
    if os.path.exists(os.path.join(kdir, "vmlinux.a")):
        tops = ["vmlinux.a"]
    else:
        tops = sorted(os.path.relpath(os.path.join(root, "built-in.a"), kdir)
                      for root, _, files in os.walk(kdir) if "built-in.a" in files)
    tops += [a for a in ("lib/lib.a", "arch/x86/lib/lib.a") if os.path.exists(os.path.join(kdir, a))]
    seen, objs = set(), []
    for a in tops:
        objs += archive_members(kdir, a, seen)
    return objs


def object_groups(kdir):
    """{symbol: group} from the objects linked into the kernel: the group of
    the object that defines a text symbol (its strong definition over a weak
    one); a static name defined in several objects of different groups is
    "ambiguous" (System.map cannot tell them apart)."""
    cache = os.path.join(kdir, "insn-groups.txt")
    smap = os.path.join(kdir, "System.map")
    if os.path.exists(cache) and os.path.getmtime(cache) >= os.path.getmtime(smap):
        with open(cache, encoding="utf-8") as f:
            lines = f.read().splitlines()
        if lines and lines[0] == CACHE_VERSION:
            return dict(line.split() for line in lines[1:] if line.strip())
    objs = linked_objects(kdir)
    # {symbol: (strong, group)}: a strong definition overrides a weak one
    # (KASAN's memcpy in mm/kasan over arch/x86/lib's weak alias), as the
    # linker does.
    found = {}
    for i in range(0, len(objs), 200):
        chunk = objs[i:i + 200]
        out = subprocess.run(["nm", "--defined-only", "-A"] + chunk, cwd=kdir,
                             capture_output=True, text=True, check=False).stdout
        for line in out.splitlines():
            # path.o: addr type name
            m = re.match(r"^(.*?):\s*[0-9a-f]*\s+([A-Za-z])\s+(\S+)$", line)
            if not m or m.group(2) not in TEXT:
                continue
            g = group_of(m.group(1))
            sym = m.group(3)
            strong = m.group(2) in "tT"
            if sym not in found or (strong and not found[sym][0]):
                found[sym] = (strong, g)
            elif strong == found[sym][0] and found[sym][1] != g:
                found[sym] = (strong, AMBIGUOUS)
    groups = {sym: v[1] for sym, v in found.items()}
    if not groups:
        raise OSError("%s: no text symbol in the objects linked into vmlinux (%d objects)" % (kdir, len(objs)))
    with open(cache + ".tmp", "w", encoding="utf-8") as f:
        f.write(CACHE_VERSION + "\n")
        for s in sorted(groups):
            f.write("%s %s\n" % (s, groups[s]))
    os.replace(cache + ".tmp", cache)
    return groups


def system_map(kdir):
    """Sorted [(address, name)] of the kernel's text symbols."""
    syms = []
    with open(os.path.join(kdir, "System.map"), encoding="utf-8") as f:
        for line in f:
            a, t, name = line.split()[:3]
            if t in TEXT:
                syms.append((int(a, 16), name))
    # Several names at one address: the lookup takes the last, so a section
    # marker sorts first (__softirqentry_text_start is also __do_softirq).
    syms.sort(key=lambda x: (x[0], not MARKER.match(x[1]), x[1]))
    return syms


class Resolver:
    """Runtime kernel address -> (function, group)."""

    def __init__(self, kdir, anchor, modsyms):
        syms = system_map(kdir)
        link = dict((n, a) for a, n in syms)
        off = 0
        for line in anchor.splitlines():
            f = line.split()
            if len(f) >= 3 and f[2] == "_stext" and "_stext" in link:
                off = int(f[0], 16) - link["_stext"]
        self.end = link.get("_etext", 0) + off
        self.addrs = [a + off for a, _ in syms]
        self.names = [n for _, n in syms]
        self.groups = object_groups(kdir)
        # Modules: their text symbols when the phase ended.
        self.mods = {}
        for line in modsyms.splitlines():
            f = line.split()
            if len(f) >= 5:
                self.mods.setdefault(f[0], []).append((int(f[1], 16), "%s%s" % (f[3], f[4])))
        for v in self.mods.values():
            v.sort()

    def __call__(self, addr, label):
        if self.addrs and self.addrs[0] <= addr < self.end:
            i = bisect.bisect_right(self.addrs, addr) - 1
            name = self.names[i]
            return name, self.groups.get(name, OTHER)
        mods = self.mods.get(label, [])
        i = bisect.bisect_right(mods, (addr, "\xff")) - 1
        if i >= 0:
            return mods[i][1], MODULE_GROUP
        return "(unknown)", OTHER


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def phases(text):
    """[(label, total, kernel, {vaddr: count}, skew)] of the plugin's output."""
    out, cur = [], None
    for line in text.splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == "phase" and len(f) == 2:
            cur = {"label": f[1], "counts": {}, "vcpu_kernel": 0}
        elif f[0] == "vcpu" and cur and len(f) == 4:
            cur["vcpu_kernel"] += int(f[3])
        elif f[0] == "site" and cur and len(f) == 3:
            cur["counts"][int(f[1], 16)] = int(f[2])
        elif f[0] == "unsited" and cur and len(f) == 2:
            cur["counts"][None] = int(f[1])
        elif f[0] == "end" and cur and len(f) == 4 and f[1] == cur["label"]:
            kernel = int(f[3])
            out.append((cur["label"], int(f[2]), kernel, cur["counts"], cur["vcpu_kernel"] - kernel))
            cur = None
    return out


def sites_of(boot):
    """BOOT's sites file: the plugin's, or the one kept compressed; None."""
    for fn in ("insn-sites.txt", "insn-sites.txt.gz"):
        if os.path.exists(os.path.join(boot, fn)):
            return os.path.join(boot, fn)
    return None


def resolve(kdir, boot):
    sites = sites_of(boot)
    if sites.endswith(".gz"):
        with gzip.open(sites, "rt", encoding="utf-8", errors="replace") as f:
            text = f.read()
    else:
        text = read(sites)
    outbox = os.path.join(boot, "outbox")
    res = Resolver(kdir, read(os.path.join(outbox, "insn-anchor")),
                   read(os.path.join(outbox, "insn-modsyms")))
    files = {}
    for label, total, kernel, counts, skew in phases(text):
        funcs, groups = {}, {}
        for addr, n in counts.items():
            name, g = res(addr, label) if addr is not None else (UNSITED, OTHER)
            funcs[name] = funcs.get(name, 0) + n
            groups[g] = groups.get(g, 0) + n
        m = re.match(r"^runs/(\d+)/(.+)$", label)
        where, short = (os.path.join(outbox, "runs", m.group(1)), m.group(2)) if m else (outbox, label)
        lines = files.setdefault(where, [])
        lines.append("phase %s %d %d" % (short, total, kernel))
        lines.append("skew %s %d" % (short, skew))
        for g, n in sorted(groups.items(), key=lambda x: -x[1]):
            lines.append("group %s %s %d" % (short, g, n))
        small = 0
        for name, n in sorted(funcs.items(), key=lambda x: (-x[1], x[0])):
            if n >= SMALL * kernel:
                lines.append("func %s %s %d" % (short, name, n))
            else:
                small += n
        if small:
            lines.append("func %s (small) %d" % (short, small))
    for where, lines in files.items():
        os.makedirs(where, exist_ok=True)
        with open(os.path.join(where, "insn.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    if not re.search(r"^exit \d+ \d+ \d+ \d+$", text, re.M):
        print("insn: %s: the plugin wrote no exit line (QEMU killed?)" % sites, file=sys.stderr)
    # Kept, compressed, so that the boot can be resolved again (a kernel's
    # group table changed, say): insn.py resolve reads either.
    if not sites.endswith(".gz"):
        with open(sites, "rb") as src, gzip.open(sites + ".gz.tmp", "wb") as dst:
            shutil.copyfileobj(src, dst)
        os.replace(sites + ".gz.tmp", sites + ".gz")
        os.remove(sites)
    return sum(len(v) for v in files.values())


def selftest(d):
    """resolve() on the fixture D (kdir/: System.map and its group table;
    boot/: the plugin's sites and the guest's anchor and module symbols):
    the insn.txt files it writes against D/expected ("== PATH" headers)."""
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(os.path.join(d, "kdir"), os.path.join(tmp, "kdir"))
        shutil.copytree(os.path.join(d, "boot"), os.path.join(tmp, "boot"))
        # The group table is the kernel's cache: newer than System.map.
        smap = os.path.join(tmp, "kdir", "System.map")
        os.utime(smap, (1, 1))
        boot = os.path.join(tmp, "boot")

        def outputs():
            got = []
            for root, _, files in sorted(os.walk(boot)):
                for fn in sorted(files):
                    if fn == "insn.txt":
                        path = os.path.join(root, fn)
                        got.append("== " + os.path.relpath(path, boot))
                        got += read(path).splitlines()
                        os.remove(path)
            return got
        resolve(os.path.join(tmp, "kdir"), boot)
        got = outputs()
        kept = not os.path.exists(os.path.join(boot, "insn-sites.txt")) and \
            os.path.exists(os.path.join(boot, "insn-sites.txt.gz"))
        main(["insn.py", "resolve", os.path.join(tmp, "kdir"), boot])
        again = outputs()
    want = read(os.path.join(d, "expected")).splitlines()
    print("%s 1 - insn.py: block counts resolved to functions and groups per phase (KASLR, "
          "modules, runs/N, small functions, a function over a section marker at its "
          "address, unsited blocks)" % ("ok" if got == want else "not ok"))
    if got != want:
        print("# got\n#   " + "\n#   ".join(got))
    sums = {}
    for line in got:
        f = line.split()
        if f[0] == "phase":
            sums[f[1]] = [int(f[3]), 0]
        elif f[0] == "func":
            sums[f[1]][1] += int(f[-1])
    bad = ["%s: kernel %d, functions %d" % (k, v[0], v[1]) for k, v in sums.items() if v[0] != v[1]]
    print("%s 2 - insn.py: every phase's functions sum to its kernel count" % ("not ok" if bad or not sums else "ok"))
    if bad:
        print("# " + "; ".join(bad))
    ok3 = kept and again == got
    print("%s 3 - insn.py: the sites are kept compressed, and resolving them again gives the same"
          % ("ok" if ok3 else "not ok"))
    print("1..3")
    return 0 if got == want and not bad and sums and ok3 else 1


def main(argv):
    if len(argv) == 4 and argv[1] == "resolve":
        if sites_of(argv[3]):
            resolve(argv[2], argv[3])
        return 0
    if len(argv) == 3 and argv[1] == "selftest":
        return selftest(argv[2])
    if len(argv) == 3 and argv[1] == "groups":
        for s, g in sorted(object_groups(argv[2]).items()):
            print(s, g)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
