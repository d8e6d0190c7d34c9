#!/bin/sh
# zswap through acompd(lz4) under swap pressure while CPU 1 goes offline and
# online in a loop: a store or load waiting for its asynchronous request may
# have migrated off the CPU whose compression context it uses, and that CPU
# may go away meanwhile. Every page verified; the console must stay clean
# (KASAN, lockdep, hung tasks).
. /acomp/tests/tap.sh
. /acomp/lib/zswap.sh

WQ=/sys/devices/virtual/workqueue/acompd/cpumask

# acompd's workers are kept on CPU 0, so that the stores and loads of tasks
# on CPU 1 wait longer for them: more of them are waiting when CPU 1 goes.
hotplug_swap() {
	swapdisk_on || return 1
	zswap_param compressor 'acompd(lz4)' && zswap_param enabled Y || return 1
	mask=$(cat "$WQ") && echo 1 >"$WQ" || return 1
	export MEMSTRESS_ZSWAP_MAX=12M
	out0=$(vmstat zswpout) in0=$(vmstat zswpin)
	zswap_watch_start
	cpu1_cycling memstress_cg 24M -m 24 -P 3 -p 2 -o both
	rc=$?
	unset MEMSTRESS_ZSWAP_MAX
	echo "$mask" >"$WQ"
	grep memstress: /tmp/memstress.out
	out1=$(vmstat zswpout) in1=$(vmstat zswpin) held=$(zswap_watch_stop)
	echo "zswpout +$((out1 - out0)) zswpin +$((in1 - in0)) compressed entries at most $held async_compress $(zswap_dbg async_compress)"
	swapdisk_off || return 1
	[ $rc = 0 ] && grep -q ' mismatches=0 ' /tmp/memstress.out &&
		zswap_stored "$out0" "$out1" "$in0" "$in1" "$held"
}

check "zswap acompd(lz4): swap pressure (3x24 MiB in 24 MiB) while CPU 1 goes offline and online, pages stored and loaded, 0 mismatches" hotplug_swap
diag "$(grep -e cycles -e memstress: /tmp/tap-check.out)"
zswap_param enabled N
zswap_param compressor lz4
tap_done
