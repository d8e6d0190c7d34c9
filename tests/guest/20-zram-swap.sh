#!/bin/sh
# zram as swap under a cgroup v2 memory.max limit, with a synchronous
# compressor and through acompd: memstress writes 64 MiB of mixed pages into
# a 24 MiB cgroup and verifies every page it reads back.
. /acomp/tests/tap.sh
. /acomp/tests/zram-lib.sh

# swap_run ALG
swap_run() {
	zram_setup "$1" 512M || return 1
	mkswap /dev/zram0 >/dev/null || return 1
	swapon /dev/zram0 || return 1
	out0=$(vmstat pswpout)
	in0=$(vmstat pswpin)
	memstress_cg 24M -m 32 -P 2 -p 2 -o both
	rc=$?
	out1=$(vmstat pswpout)
	in1=$(vmstat pswpin)
	echo "pswpout +$((out1 - out0)) pswpin +$((in1 - in0)) rc=$rc"
	# async_stat: submitted completed in_flight peak errors
	read -r submitted completed _ peak errors <"$ZRAM/async_stat"
	echo "async_stat submitted=$submitted completed=$completed peak=$peak errors=$errors"
	swapoff /dev/zram0
	[ "$rc" -eq 0 ] || return 1
	grep -q ' mismatches=0 ' /tmp/memstress.out || return 1
	# The limit really pushed pages through zram, both ways.
	[ $((out1 - out0)) -gt 4096 ] && [ $((in1 - in0)) -gt 0 ] || return 1
	# Through acompd, swap-out went out asynchronously, overlapping.
	case $1 in
	acompd*) [ "$submitted" -gt 4096 ] && [ "$peak" -gt 1 ] && [ "$errors" = 0 ] ;;
	*) [ "$submitted" = 0 ] ;;
	esac
}

for alg in lz4 'acompd(lz4)'; do
	check "zram $alg swap under memory.max=24M: memstress 2x32 MiB, 0 mismatches, pages swapped out and in" swap_run "$alg"
	diag "$(grep memstress: /tmp/tap-check.out)"
	diag "$(grep pswpout /tmp/tap-check.out)"
	diag "$(grep async_stat /tmp/tap-check.out)"
done
zram_reset
tap_done
