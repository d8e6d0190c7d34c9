#!/bin/sh
# zram as swap under a cgroup v2 memory.max limit: memstress writes 192 MiB of
# mixed pages into a 64 MiB cgroup and verifies every page it reads back.
. /acomp/tests/tap.sh
. /acomp/tests/zram-lib.sh

CG=/sys/fs/cgroup/acomp-test

swap_run() {
	zram_setup lz4 512M || return 1
	mkswap /dev/zram0 >/dev/null || return 1
	swapon /dev/zram0 || return 1
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control
	mkdir -p "$CG"
	echo 64M >"$CG/memory.max"
	out0=$(vmstat pswpout)
	in0=$(vmstat pswpin)
	sh -c "echo \$\$ >$CG/cgroup.procs && exec memstress -m 96 -P 2 -p 2 -o both" >/tmp/memstress.out 2>&1
	rc=$?
	cat /tmp/memstress.out
	out1=$(vmstat pswpout)
	in1=$(vmstat pswpin)
	echo "pswpout +$((out1 - out0)) pswpin +$((in1 - in0)) rc=$rc"
	swapoff /dev/zram0
	rmdir "$CG"
	[ "$rc" -eq 0 ] || return 1
	grep -q ' mismatches=0 ' /tmp/memstress.out || return 1
	# The limit really pushed pages through zram, both ways.
	[ $((out1 - out0)) -gt 8192 ] && [ $((in1 - in0)) -gt 0 ]
}

check "zram lz4 swap under memory.max=64M: memstress 2x96 MiB, 0 mismatches, pages swapped out and in" swap_run
diag "$(grep memstress: /tmp/tap-check.out)"
diag "$(grep pswpout /tmp/tap-check.out)"
zram_reset
tap_done
