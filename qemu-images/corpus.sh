#!/usr/bin/env bash
# Page corpus of the page-compression microbenchmark (consumer/pagebench):
# 512 pages of 4 KiB, from files of Debian packages the harness installs
# anyway, plus zero and random pages. Usage: corpus.sh OUT
#   pages   0-127  /bin/busybox, first 512 KiB         (busybox-static: x86-64 code and data)
#   pages 128-255  /usr/bin/stress-ng, 512 KiB at 1 MiB (stress-ng: code and data)
#   pages 256-383  text: GPL-2, GPL-3, Apache-2.0 (base-files) and fio's HOWTO, 512 KiB
#   pages 384-447  zero
#   pages 448-511  random, fixed seed
set -euo pipefail
# shellcheck source=qemu-images/lib.sh
. "$(dirname "$0")/lib.sh"
STAGE=corpus
out=${1:?usage: corpus.sh OUT}
need_pkgs busybox-static stress-ng fio base-files

kib512() { head -c 524288; }
# The producers below are cut short by head: SIGPIPE is expected there.
set +o pipefail
{
	kib512 </bin/busybox
	tail -c +1048577 /usr/bin/stress-ng | kib512
	while :; do
		cat /usr/share/common-licenses/GPL-2 /usr/share/common-licenses/GPL-3 \
			/usr/share/common-licenses/Apache-2.0
		zcat /usr/share/doc/fio/HOWTO.rst.gz
	done | kib512
	head -c 262144 /dev/zero
	python3 -c 'import random, sys; random.seed(1); sys.stdout.buffer.write(random.randbytes(262144))'
} >"$out.tmp"
set -o pipefail
[ "$(stat -c %s "$out.tmp")" -eq $((512 * 4096)) ] || die "corpus has the wrong size"
mv "$out.tmp" "$out"
say "wrote $out (512 pages, sha256 $(sha256sum "$out" | cut -c1-16))"
