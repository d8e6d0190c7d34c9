#!/bin/sh
# The guest booted with what every other test relies on.
. /acomp/tests/tap.sh

check "guest runs on 2 or more CPUs" test "$(nproc)" -ge 2

# One /proc/crypto entry per compressor, with its run-time self-test passed.
crypto_ok() {
	awk -v want="$1" '
		/^name/ { name = $3 }
		/^selftest/ { if (name == want && $3 == "passed") found = 1 }
		END { exit !found }' /proc/crypto
}
for alg in lzo lzo-rle lz4 lz4hc zstd deflate 842; do
	check "/proc/crypto lists $alg with selftest passed" crypto_ok "$alg"
done

check "/proc/vmstat has swap and reclaim counters" \
	sh -c 'for k in pswpin pswpout pgsteal_anon pgscan_anon pgmajfault; do grep -q "^$k " /proc/vmstat || exit 1; done'
check "cgroup v2 offers the memory controller" grep -qw memory /sys/fs/cgroup/cgroup.controllers
check "PSI memory pressure is reported" test -r /proc/pressure/memory
check "zram0 and zswap are present" test -e /sys/block/zram0/comp_algorithm -a -d /sys/module/zswap/parameters
tap_done
