#!/bin/sh
# Allocation faults (FAILSLAB, FAIL_PAGE_ALLOC) injected into the tasks that
# swap and write, synchronously and through acompd: zswap stores and loads,
# zram swap-out, direct writes to zram. A failure must surface to its writer
# (a rejected or failed swap-out, an I/O error) and damage no page; nothing
# may hang (the console is checked for hung tasks and splats), and kmemleak
# must find nothing new afterwards.
. /acomp/tests/tap.sh
. /acomp/lib/zram.sh
. /acomp/lib/zswap.sh
. /acomp/lib/fault.sh

ATTRS="failslab fail_page_alloc"
trap 'fault_disarm $ATTRS' EXIT
# arm PERCENT TIMES SLEEPING: both attributes.
arm() {
	for _a in $ATTRS; do
		fault_arm "$_a" "$1" "$2" "$3" || return 1
	done
}

# injected TIMES: the failures both attributes injected since armed.
injected() {
	echo $((2 * $1 - $(fault_left failslab) - $(fault_left fail_page_alloc)))
}

zswap_rejects() {
	echo $(($(zswap_dbg reject_alloc_fail) + $(zswap_dbg reject_kmemcache_fail)))
}

# zswap_faults ALG CALLER_RUNS SLEEPING: memstress -f 2x32 MiB in 24 MiB
# through zswap (zsmalloc: its loads copy the object out with an atomic
# allocation) while 10% of its tasks' allocations fail (SLEEPING=0: only
# those that cannot sleep).
zswap_faults() {
	acompd_caller_runs "$2" || return 1
	swapdisk_on || return 1
	zswap_param zpool zsmalloc && zswap_param compressor "$1" &&
		zswap_param enabled Y || return 1
	rej0=$(zswap_rejects) in0=$(vmstat zswpin) out0=$(vmstat zswpout)
	arm 10 3000 "$3" || return 1
	memstress_cg 24M -m 32 -P 2 -p 2 -o both -f
	rc=$?
	fault_disarm $ATTRS
	n=$(injected 3000)
	rej1=$(zswap_rejects) in1=$(vmstat zswpin) out1=$(vmstat zswpout)
	echo "faults injected $n; zswap rejected +$((rej1 - rej0)) (alloc $(zswap_dbg reject_alloc_fail) kmemcache $(zswap_dbg reject_kmemcache_fail)) zswpout +$((out1 - out0)) zswpin +$((in1 - in0))"
	swapdisk_off
	zswap_param enabled N
	acompd_caller_runs Y
	[ "$rc" = 0 ] && grep -q ' mismatches=0 ' /tmp/memstress.out &&
		[ "$n" -gt 0 ] && [ $((rej1 - rej0)) -gt 0 ] && [ $((in1 - in0)) -gt 0 ]
}

# zram_swap_faults ALG: memstress -f 2x32 MiB in 24 MiB on zram swap while
# 5% of its tasks' allocations fail, sleeping ones too (zram's GFP_NOIO
# retry of zs_malloc): a failed swap-out keeps the page in memory.
zram_swap_faults() {
	zram_setup "$1" 256M && mkswap /dev/zram0 >/dev/null && swapon /dev/zram0 || return 1
	out0=$(vmstat pswpout)
	arm 5 3000 1 || return 1
	memstress_cg 24M -m 32 -P 2 -p 2 -o both -f
	rc=$?
	fault_disarm $ATTRS
	n=$(injected 3000)
	out1=$(vmstat pswpout)
	echo "faults injected $n; pswpout +$((out1 - out0)); io_stat $(cat "$ZRAM/io_stat"); async_stat $(cat "$ZRAM/async_stat")"
	swapoff /dev/zram0
	[ "$rc" = 0 ] && grep -q ' mismatches=0 ' /tmp/memstress.out &&
		[ "$n" -gt 0 ] && [ $((out1 - out0)) -gt 4096 ]
}

# zram_write_faults ALG: faultio's direct 64 KiB writes to a 16 MiB zram,
# 3 rounds, 10% of its allocations failing, sleeping ones too: failed writes
# end with an error to faultio and in zram's failed_writes, and every page
# holds the data of its last successful write or of the failed one.
zram_write_faults() {
	zram_setup "$1" 16M || return 1
	f0=$(awk '{ print $2 }' "$ZRAM/io_stat")
	arm 10 2000 1 || return 1
	faultio /dev/zram0 16 65536 3 >/tmp/faultio.out 2>&1
	rc=$?
	fault_disarm $ATTRS
	n=$(injected 2000)
	cat /tmp/faultio.out
	f1=$(awk '{ print $2 }' "$ZRAM/io_stat")
	echo "faults injected $n; zram failed_writes +$((f1 - f0)); async_stat $(cat "$ZRAM/async_stat")"
	[ "$rc" = 0 ] && verified_pages faultio /tmp/faultio.out
	zram_reset
	[ "$rc" = 0 ] && grep -q ' damaged=0$' /tmp/faultio.out && [ "$n" -gt 0 ] &&
		! grep -q ' failed=0 ' /tmp/faultio.out && [ $((f1 - f0)) -gt 0 ]
}

# Leaks: tests/runner.sh scans kmemleak before and after this script.
for c in 'lz4 Y 0' 'acompd(lz4) N 0' 'acompd(lz4) Y 1'; do
	# shellcheck disable=SC2086 # ALG CALLER_RUNS SLEEPING
	set -- $c
	check "zswap $1 (caller_runs=$2) on zsmalloc, $([ "$3" = 1 ] && echo all || echo atomic) allocations of the swapping tasks failing 10%: 0 mismatches, stores rejected, loads done" zswap_faults "$@"
	diag "$(grep -e memstress: -e injected /tmp/tap-check.out)"
done
for alg in lz4 'acompd(lz4)'; do
	check "zram $alg swap, allocations of the swapping tasks failing 5% (sleeping ones too): 0 mismatches" zram_swap_faults "$alg"
	diag "$(grep -e memstress: -e injected /tmp/tap-check.out)"
	check "zram $alg direct 64 KiB writes, 10% of allocations failing: errors to the writer and failed_writes, no page damaged" zram_write_faults "$alg"
	diag "$(grep -e faultio: -e injected /tmp/tap-check.out)"
done
zswap_param compressor lz4
tap_done
