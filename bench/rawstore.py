#!/usr/bin/env python3
"""The raw guest output of a benchmark run: the directory RUNDIR/raw/ while a
run is made, one compressed archive RUNDIR/raw.tar.xz once it is kept.

    rawstore.py archive RUNDIR   raw/ -> raw.tar.xz (deterministic: sorted
                                 names, no owners or times), then removes
                                 raw/ once the archive reads back the same
    rawstore.py extract RUNDIR   raw.tar.xz -> raw/ (to look at it)

bench/report.py reads either through raw_dir().
"""

import contextlib
import hashlib
import os
import shutil
import sys
import tarfile
import tempfile

ARCHIVE = "raw.tar.xz"
SCRATCH = "outbox.img"


@contextlib.contextmanager
def raw_dir(rundir):
    """A directory holding the run's raw/ boots: RUNDIR/raw itself, or the
    archive extracted to a temporary directory; None when there is neither."""
    d = os.path.join(rundir, "raw")
    arc = os.path.join(rundir, ARCHIVE)
    if os.path.isdir(d):
        yield d
    elif os.path.isfile(arc):
        with extracted(arc) as back:
            yield back
    else:
        yield None


@contextlib.contextmanager
def extracted(arc):
    """The raw/ of archive ARC, extracted to a temporary directory."""
    with tempfile.TemporaryDirectory(prefix="acomp-raw-") as tmp:
        unpack(arc, tmp)
        yield os.path.join(tmp, "raw")


def unpack(arc, dest):
    """Extract archive ARC into DEST once every member has been checked."""
    with tarfile.open(arc, "r:xz") as t:
        members = list(safe_members(t, arc))
        if hasattr(tarfile, "data_filter"):
            t.extractall(dest, members=members, filter="data")
        else:
            t.extractall(dest, members=members)


def safe_members(t, arc):
    """The archive's members, refusing any that would land outside raw/."""
    for m in t.getmembers():
        name = os.path.normpath(m.name)
        if not (name == "raw" or name.startswith("raw/")) or not (m.isfile() or m.isdir()):
            raise SystemExit("%s: unexpected member %s" % (arc, m.name))
        yield m


def tree_digest(top, skip=()):
    """A digest of the files under TOP but those named in SKIP: their paths
    and contents."""
    h = hashlib.sha256()
    for root, dirs, files in os.walk(top):
        dirs.sort()
        for f in sorted(files):
            if f in skip:
                continue
            p = os.path.join(root, f)
            h.update(os.path.relpath(p, top).encode() + b"\0")
            with open(p, "rb") as fh:
                h.update(hashlib.sha256(fh.read()).digest())
    return h.hexdigest()


def archive(rundir):
    d = os.path.join(rundir, "raw")
    arc = os.path.join(rundir, ARCHIVE)
    if not os.path.isdir(d):
        raise SystemExit("%s: no raw/ to archive" % rundir)

    def clean(ti):
        ti.uid = ti.gid = 0
        ti.uname = ti.gname = ""
        ti.mtime = 0
        ti.mode = 0o755 if ti.isdir() else 0o644
        return ti

    # Sparse scratch files a failed boot may leave (run.sh's outbox image)
    # are not its output; anything but files and directories is refused.
    tmp = arc + ".tmp"
    try:
        with tarfile.open(tmp, "w:xz", format=tarfile.PAX_FORMAT) as t:
            for root, dirs, files in os.walk(d):
                dirs.sort()
                rel = os.path.relpath(root, rundir)
                t.add(root, arcname=rel, recursive=False, filter=clean)
                for f in sorted(files):
                    p = os.path.join(root, f)
                    if f == SCRATCH:
                        continue
                    if os.path.islink(p) or not os.path.isfile(p):
                        raise SystemExit("%s: %s is not a regular file; raw/ kept" % (rundir, p))
                    t.add(p, arcname=os.path.join(rel, f), filter=clean)
        with extracted(tmp) as back:
            same = tree_digest(back) == tree_digest(d, skip=(SCRATCH,))
        if not same:
            raise SystemExit("%s: the archive does not read back as raw/; raw/ kept" % rundir)
        os.rename(tmp, arc)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    shutil.rmtree(d)
    return 0


def extract(rundir):
    if os.path.isdir(os.path.join(rundir, "raw")):
        raise SystemExit("%s: raw/ exists already" % rundir)
    unpack(os.path.join(rundir, ARCHIVE), rundir)
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "archive":
        return archive(argv[2])
    if len(argv) == 3 and argv[1] == "extract":
        return extract(argv[2])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
