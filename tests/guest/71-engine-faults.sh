#!/bin/sh
# Engine faults: acompd (CONFIG_CRYPTO_ACOMPD_FAULT_INJECTION) fails a
# fraction of the compressions submitted by the task under test with -EIO,
# or completes requests late, from a worker. zram and zswap must survive
# both: count the failures, surface them to the writer (an I/O error, a
# failed or rejected swap-out), damage no page and never hang; also with
# CPU 1 going offline and online while delayed requests are in flight
# (zswap) or wait in acompd's backlog (zram swap).
. /acomp/tests/tap.sh
. /acomp/lib/zram.sh
. /acomp/lib/zswap.sh
. /acomp/lib/fault.sh

ATTRS="acompd/fail_request acompd/delay_request"
trap 'fault_disarm $ATTRS' EXIT
async_stat() { awk -v n="$1" '{ print $n }' "$ZRAM/async_stat"; }

# engine KIND PERCENT: arm fail_request (KIND=fail) or delay_request
# (KIND=delay, 2 ms each) for PERCENT% of the requests of tasks with
# make-it-fail, at most 100000 times; the other one off.
engine() {
	fault_disarm $ATTRS
	case $1 in
	fail) fault_arm acompd/fail_request "$2" 100000 ;;
	delay) echo 2000 >"$FAULT_DBG/acompd/delay_request/delay_us" &&
		fault_arm acompd/delay_request "$2" 100000 ;;
	esac
}

# zram_engine KIND: faultio's direct 64 KiB writes to a 16 MiB zram through
# acompd(lz4), 3 rounds, 10% of its compressions failing or 30% delayed.
zram_engine() {
	acompd_caller_runs Y && zram_setup 'acompd(lz4)' 16M || return 1
	e0=$(acompd_stat injected_errors) d0=$(acompd_stat injected_delays)
	if [ "$1" = fail ]; then engine fail 10; else engine delay 30; fi || return 1
	faultio /dev/zram0 16 65536 3 >/tmp/faultio.out 2>&1
	rc=$?
	fault_disarm $ATTRS
	cat /tmp/faultio.out
	e1=$(acompd_stat injected_errors) d1=$(acompd_stat injected_delays)
	echo "acompd injected_errors +$((e1 - e0)) injected_delays +$((d1 - d0)); zram io_stat $(cat "$ZRAM/io_stat") async_stat $(cat "$ZRAM/async_stat")"
	errs=$(async_stat 5) inflight=$(async_stat 3)
	[ "$rc" = 0 ] && verified_pages faultio /tmp/faultio.out
	zram_reset
	[ "$rc" = 0 ] && grep -q ' damaged=0$' /tmp/faultio.out && [ "$inflight" = 0 ] || return 1
	case $1 in
	fail) [ $((e1 - e0)) -gt 0 ] && [ "$errs" -gt 0 ] && ! grep -q ' failed=0 ' /tmp/faultio.out ;;
	delay) [ $((d1 - d0)) -gt 0 ] && [ "$errs" = 0 ] && grep -q ' failed=0 ' /tmp/faultio.out ;;
	esac
}

# zram_swap_engine KIND [CYCLE]: memstress -f 2x32 MiB in 24 MiB on zram swap
# through acompd(lz4), 10% of the swapping tasks' compressions failing or
# 30% delayed: a failed swap-out keeps the page in memory. CYCLE=1: 3x16
# MiB through acompd(lzo-rle) with caller_runs N and queue_len 1, so that
# requests wait in its backlog, while CPU 1 goes offline and online.
QLEN=/sys/module/acompd/parameters/queue_len
zram_swap_engine() {
	cycle=${2:-0} alg='acompd(lz4)' caller=Y qlen=$(cat "$QLEN")
	[ "$cycle" = 1 ] && alg='acompd(lzo-rle)' caller=N
	acompd_caller_runs $caller || return 1
	# The instance keeps the queue_len it was created with.
	if [ "$cycle" = 1 ]; then echo 1 >"$QLEN" || return 1; fi
	zram_setup "$alg" 256M && mkswap /dev/zram0 >/dev/null && swapon /dev/zram0
	rc=$?
	echo "$qlen" >"$QLEN"
	[ "$rc" = 0 ] || return 1
	e0=$(acompd_stat injected_errors) d0=$(acompd_stat injected_delays) b0=$(acompd_stat backlogged)
	if [ "$1" = fail ]; then engine fail 10; else engine delay 30; fi || return 1
	if [ "$cycle" = 1 ]; then
		cpu1_cycling memstress_cg 24M -m 16 -P 3 -p 2 -o both -f
	else
		memstress_cg 24M -m 32 -P 2 -p 2 -o both -f
	fi
	rc=$?
	fault_disarm $ATTRS
	e1=$(acompd_stat injected_errors) d1=$(acompd_stat injected_delays) b1=$(acompd_stat backlogged)
	errs=$(async_stat 5)
	echo "acompd injected_errors +$((e1 - e0)) injected_delays +$((d1 - d0)) backlogged +$((b1 - b0)); zram io_stat $(cat "$ZRAM/io_stat") async_stat $(cat "$ZRAM/async_stat")"
	swapoff /dev/zram0
	[ "$cycle" = 1 ] && zram_reset
	acompd_caller_runs Y
	[ "$rc" = 0 ] && grep -q ' mismatches=0 ' /tmp/memstress.out || return 1
	[ "$cycle" = 0 ] || [ $((b1 - b0)) -gt 0 ] || return 1
	case $1 in
	fail) [ $((e1 - e0)) -gt 0 ] && [ "$errs" -gt 0 ] ;;
	delay) [ $((d1 - d0)) -gt 0 ] && [ "$errs" = 0 ] ;;
	esac
}

# zswap_engine KIND [CYCLE]: memstress -f 2x32 MiB (3x24 with CYCLE) in
# 24 MiB through zswap acompd(lz4), 10% of its compressions failing or 30%
# of its requests delayed (stores and loads, waited for asynchronously);
# CYCLE=1: CPU 1 goes offline and online meanwhile.
zswap_engine() {
	acompd_caller_runs Y && swapdisk_on || return 1
	zswap_param zpool zsmalloc && zswap_param compressor 'acompd(lz4)' &&
		zswap_param enabled Y || return 1
	e0=$(acompd_stat injected_errors) d0=$(acompd_stat injected_delays)
	r0=$(zswap_dbg reject_compress_fail) w0=$(zswap_dbg async_wait_ns) in0=$(vmstat zswpin)
	if [ "$1" = fail ]; then engine fail 10; else engine delay 30; fi || return 1
	if [ "${2:-0}" = 1 ]; then
		export MEMSTRESS_ZSWAP_MAX=12M
		cpu1_cycling memstress_cg 24M -m 24 -P 3 -p 2 -o both -f
	else
		memstress_cg 24M -m 32 -P 2 -p 2 -o both -f
	fi
	rc=$?
	unset MEMSTRESS_ZSWAP_MAX
	fault_disarm $ATTRS
	e1=$(acompd_stat injected_errors) d1=$(acompd_stat injected_delays)
	r1=$(zswap_dbg reject_compress_fail) w1=$(zswap_dbg async_wait_ns) in1=$(vmstat zswpin)
	echo "acompd injected_errors +$((e1 - e0)) injected_delays +$((d1 - d0)); zswap reject_compress_fail +$((r1 - r0)) async_wait_ns +$((w1 - w0)) zswpin +$((in1 - in0))"
	swapdisk_off
	zswap_param enabled N
	[ "$rc" = 0 ] && grep -q ' mismatches=0 ' /tmp/memstress.out && [ $((in1 - in0)) -gt 0 ] || return 1
	case $1 in
	# Every injected error is a rejected store (reject_compress_fail also
	# counts the pages that do not compress to less than a page).
	fail) [ $((e1 - e0)) -gt 0 ] && [ $((r1 - r0)) -ge $((e1 - e0)) ] ;;
	delay) [ $((d1 - d0)) -gt 0 ] && [ $((w1 - w0)) -gt 0 ] ;;
	esac
}

modprobe acompd
check "acompd has its fault-injection attributes and counters" \
	test -d "$FAULT_DBG/acompd/fail_request" -a -e "$FAULT_DBG/acompd/delay_request/delay_us" \
	-a -e "$FAULT_DBG/acompd/injected_errors" -a -e "$FAULT_DBG/acompd/injected_delays"
# Leaks: tests/runner.sh scans kmemleak before and after this script.
for k in fail delay; do
	check "zram acompd(lz4) direct writes, engine $k: $([ $k = fail ] && echo 'errors to the writer, counted' || echo 'no error'), no page damaged" zram_engine $k
	diag "$(grep -e faultio: -e injected /tmp/tap-check.out)"
	check "zram acompd(lz4) swap, engine $k: 0 mismatches$([ $k = fail ] && echo ', errors counted')" zram_swap_engine $k
	diag "$(grep -e memstress: -e injected /tmp/tap-check.out)"
	check "zswap acompd(lz4), engine $k: 0 mismatches, $([ $k = fail ] && echo 'each failed store rejected and counted' || echo 'loads and stores waited for')" zswap_engine $k
	diag "$(grep -e memstress: -e injected /tmp/tap-check.out)"
done
check "zswap acompd(lz4), 30% of requests delayed, CPU 1 offline and online in a loop: 0 mismatches" zswap_engine delay 1
diag "$(grep -e cycles -e memstress: -e injected /tmp/tap-check.out)"
check "zram acompd(lzo-rle) swap, queue_len 1 and caller_runs N (a backlog), 30% delayed, CPU 1 offline and online in a loop: 0 mismatches, requests backlogged" zram_swap_engine delay 1
diag "$(grep -e cycles -e memstress: -e injected /tmp/tap-check.out)"
zswap_param compressor lz4
tap_done
