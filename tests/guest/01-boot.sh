#!/bin/sh
# The guest booted with what every other test relies on.
. /acomp/tests/tap.sh

check "guest runs on 2 or more CPUs" test "$(nproc)" -ge 2

# The test manager marks an algorithm it has no vectors for as passed too,
# after "alg: No test for NAME (DRIVER)": only the first boot messages tell
# them apart, so they must still be in the kernel's log buffer.
check "the kernel log still holds the first boot messages" sh -c 'dmesg | grep "Linux version" >/dev/null'

# selftest_ok NAME: /proc/crypto lists NAME with its run-time self-test
# passed, and the test manager had vectors for it.
selftest_ok() {
	awk -v want="$1" '
		/^name/ { name = $3 }
		/^selftest/ { if (name == want && $3 == "passed") found = 1 }
		END { exit !found }' /proc/crypto || return 1
	if dmesg | grep -F "alg: No test for $1 (" >/dev/null; then
		echo "the test manager has no vectors for $1"
		return 1
	fi
}
for alg in lzo lzo-rle lz4 lz4hc zstd deflate; do
	check "/proc/crypto lists $alg with selftest passed on the test manager's vectors" selftest_ok "$alg"
done
# 842 has none in 6.1: registered only (10-zram-fio round-trips it).
check "/proc/crypto lists 842, registered only: the test manager has no 842 vectors" \
	sh -c 'grep -qx "name *: 842" /proc/crypto && dmesg | grep -F "alg: No test for 842 (" >/dev/null'

# pipefail: a pipeline fails when its producer fails (tests/tap.sh).
pipefail_on() {
	if false | cat; then
		return 1
	fi
}
check "a pipeline fails when its producer fails (pipefail)" pipefail_on

check "/proc/vmstat has swap and reclaim counters" \
	sh -c 'for k in pswpin pswpout pgsteal_anon pgscan_anon pgmajfault; do grep -q "^$k " /proc/vmstat || exit 1; done'
check "cgroup v2 offers the memory controller" grep -qw memory /sys/fs/cgroup/cgroup.controllers
check "PSI memory pressure is reported" test -r /proc/pressure/memory
check "zram0 and zswap are present" test -e /sys/block/zram0/comp_algorithm -a -d /sys/module/zswap/parameters
tap_done
