#!/bin/sh
# The page-verifying workload catches corruption: one byte flipped after
# filling is reported (page, offset, bytes) and fails the run, in RAM and
# when the page went through zram swap and back.
. /acomp/tests/tap.sh

# flipped OUTPUT: memstress reported exactly the flipped byte and failed.
flipped() {
	grep -q 'mismatches=1 ' "$1" &&
		grep -q 'MISMATCH proc 0 page [0-9]* ([a-z]*) pass 0 offset 123: got 0x.. expected 0x..' "$1"
}

memstress -m 4 -P 1 -p 1 -F >/tmp/flip-ram.out 2>&1
rc=$?
diag <"/tmp/flip-ram.out"
check "memstress -F in RAM exits 1" test "$rc" = 1
check "memstress -F in RAM reports the flipped byte once" flipped /tmp/flip-ram.out

memstress -m 4 -P 1 -p 1 >/tmp/clean-ram.out 2>&1
rc=$?
check "memstress without -F in RAM exits 0 with 0 mismatches" \
	sh -c "[ $rc = 0 ] && grep -q 'mismatches=0 ' /tmp/clean-ram.out"

# Through swap: 24 MiB in a cgroup limited to 8M, zram0 (lz4) as swap.
Z=/sys/block/zram0
echo 1 >$Z/reset
echo lz4 >$Z/comp_algorithm && echo 64M >$Z/disksize && mkswap /dev/zram0 >/dev/null &&
	swapon /dev/zram0
memstress_cg 8M -m 24 -P 1 -p 1 -o seq -F >/tmp/flip-swap.log
rc=$?
cp /tmp/memstress.out /tmp/flip-swap.out
diag </tmp/flip-swap.out
swapped=$(awk '{ print $3 }' $Z/mm_stat)
swapoff /dev/zram0
echo 1 >$Z/reset
check "memstress -F through zram swap exits 1" test "$rc" = 1
check "memstress -F through zram swap reports the flipped byte once" flipped /tmp/flip-swap.out
check "memstress's pages went through zram (faults > 0)" \
	sh -c "grep -q ' faults=[1-9]' /tmp/flip-swap.out"
diag "zram mem_used after the run: $swapped"
tap_done
