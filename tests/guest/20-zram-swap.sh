#!/bin/sh
# zram as swap under a cgroup v2 memory.max limit, with a synchronous
# compressor and through acompd: memstress writes 64 MiB of mixed pages into
# a 24 MiB cgroup and verifies every page it reads back.
. /acomp/tests/tap.sh
. /acomp/lib/zram.sh

# swap_run ALG [CALLER_RUNS]: acompd's caller_runs Y (default) or N (fully
# asynchronous).
swap_run() {
	acompd_caller_runs "${2:-Y}" || return 1
	zram_setup "$1" 512M || return 1
	mkswap /dev/zram0 >/dev/null || return 1
	swapon /dev/zram0 || return 1
	out0=$(vmstat pswpout)
	in0=$(vmstat pswpin)
	wr0=$(vmstat nr_written)
	memstress_cg 24M -m 32 -P 2 -p 2 -o both
	rc=$?
	out1=$(vmstat pswpout)
	in1=$(vmstat pswpin)
	wr1=$(vmstat nr_written)
	echo "pswpout +$((out1 - out0)) pswpin +$((in1 - in0)) nr_written +$((wr1 - wr0)) rc=$rc"
	# async_stat: submitted completed in_flight peak errors sync
	read -r submitted completed _ peak errors sync <"$ZRAM/async_stat"
	echo "async_stat submitted=$submitted completed=$completed peak=$peak errors=$errors sync=$sync"
	swapoff /dev/zram0
	acompd_caller_runs Y
	[ "$rc" -eq 0 ] || return 1
	grep -q ' mismatches=0 ' /tmp/memstress.out || return 1
	# The limit really pushed pages through zram, both ways.
	[ $((out1 - out0)) -gt 4096 ] && [ $((in1 - in0)) -gt 0 ] || return 1
	# Each page's writeback ended once: a swap-out page that rw_page
	# refused had it ended twice (nr_written twice pswpout), which also
	# took its PG_reclaim rotation away.
	[ $((wr1 - wr0)) -le $(((out1 - out0) * 11 / 10)) ] || return 1
	# Through acompd, swap-out went out in plugged batches, overlapping.
	case $1 in
	acompd*) [ "$submitted" -gt 4096 ] && [ "$peak" -gt 1 ] && [ "$errors" = 0 ] &&
		[ "$completed" = "$submitted" ] ;;
	*) [ "$submitted" = 0 ] ;;
	esac
}

for alg in lz4 'acompd(lz4)'; do
	check "zram $alg swap under memory.max=24M: memstress 2x32 MiB, 0 mismatches, pages swapped out and in, writeback ended once" swap_run "$alg"
	diag "$(grep memstress: /tmp/tap-check.out)"
	diag "$(grep pswpout /tmp/tap-check.out)"
	diag "$(grep async_stat /tmp/tap-check.out)"
done
# no_kworker_memalloc: no kworker is left with PF_MEMALLOC (0x800 in the
# flags field of /proc/PID/stat) after batches stored for reclaimers, some
# by zram's worker when the reclaimer slept first.
no_kworker_memalloc() {
	bad=0
	for st in /proc/[0-9]*/stat; do
		read -r line <"$st" 2>/dev/null || continue
		case $line in *'(kworker'*) ;; *) continue ;; esac
		# shellcheck disable=SC2086 # the fields after "(comm)"
		set -- ${line#*) }
		if [ $(($7 & 0x800)) != 0 ]; then
			echo "PF_MEMALLOC left on: $line"
			bad=$((bad + 1))
		fi
	done
	[ "$bad" = 0 ]
}

check "zram acompd(lz4) swap, fully asynchronous (acompd.caller_runs=N): 0 mismatches, batches in flight, none run in the caller" \
	acompd_none_in_caller swap_run 'acompd(lz4)' N
diag "$(grep -e memstress: -e pswpout -e async_stat /tmp/tap-check.out)"
check "no kworker keeps PF_MEMALLOC after zram batches stored for reclaimers" no_kworker_memalloc
zram_reset
tap_done
