#!/bin/sh
# The soak, in the guest (ACOMP_JOB=soak; tests/soak.sh boots it): rounds of
# mixed load with random fault injection until ACOMP_SOAK_SECONDS have
# passed. Each round draws (from ACOMP_SOAK_SEED) a consumer, a compressor
# and the faults, runs the load and verifies every page it wrote:
#   zram-swap   memstress -f 2x32 MiB in 24 MiB on zram swap
#   zswap       memstress -f 2x32 MiB in 24 MiB through zswap (zsmalloc or
#               zbud) in front of the swap disk
#   zram-io     faultio: direct 64 KiB writes to a 16 MiB zram, 2 rounds
#   mixed       zswap memstress and zram-io at once, CPU 1 offline and online
# Faults, for the tasks under test only (task-filter): FAILSLAB and
# FAIL_PAGE_ALLOC at 0-10%, sleeping allocations too or not; acompd's
# fail_request at 0-10% and delay_request at 0-30%.
# Prints one "soak: round ..." line per round and a final "soak: total ..."
# line; OUT/soak.txt gets both. Faults injected: the failures the four
# attributes injected (allocations failed, requests failed or delayed).
# Errors surfaced: the failed writes faultio saw, zram's failed swap-outs,
# zswap's stores rejected for want of memory; zswap's stores whose
# compression failed (incompressible pages too) and acompd's injected
# errors are reported apart. Exit 0 when no page was lost, kmemleak
# found nothing and every round's workload ran; the host counts splats.
. /acomp/tests/tap.sh
. /acomp/lib/zram.sh
. /acomp/lib/zswap.sh
. /acomp/lib/fault.sh

out=${1:-/out}
export ACOMP_OUT=$out
dur=${ACOMP_SOAK_SECONDS:-600}
seed=${ACOMP_SOAK_SEED:-1}
ATTRS="failslab fail_page_alloc acompd/fail_request acompd/delay_request"
trap 'fault_disarm $ATTRS' EXIT
modprobe acompd

now() { cut -d. -f1 /proc/uptime; }

# rnd N: set R to a number in [0, N), from a xorshift of the seed
# (reproducible). It sets a variable rather than printing: called in $(...)
# it would advance a subshell's state and draw the same number every time.
RND=$((seed & 0x7fffffff))
[ "$RND" = 0 ] && RND=1
rnd() {
	RND=$(((RND ^ (RND << 13)) & 0x7fffffff))
	RND=$(((RND ^ (RND >> 17)) & 0x7fffffff))
	RND=$(((RND ^ (RND << 5)) & 0x7fffffff))
	[ "$RND" = 0 ] && RND=1
	R=$((RND % $1))
}

# injected: faults injected so far by the four attributes (each armed with
# a budget of BUDGET; what is left is read back) plus acompd's counters.
BUDGET=100000
left() { cat "$FAULT_DBG/$1/times"; }
zram_failed() { awk '{ print $2 }' "$ZRAM/io_stat" 2>/dev/null || echo 0; }
zswap_rejects() {
	echo $(($(zswap_dbg reject_alloc_fail) + $(zswap_dbg reject_kmemcache_fail)))
}

# arm: draw and arm this round's faults; FAULTS describes them.
arm() {
	rnd 11; slab=$R
	rnd 11; page=$R
	rnd 2; sleeping=$R
	rnd 11; efail=$R
	rnd 31; edelay=$R
	fault_arm failslab "$slab" $BUDGET "$sleeping" &&
		fault_arm fail_page_alloc "$page" $BUDGET "$sleeping" &&
		fault_arm acompd/fail_request "$efail" $BUDGET &&
		echo 2000 >"$FAULT_DBG/acompd/delay_request/delay_us" &&
		fault_arm acompd/delay_request "$edelay" $BUDGET || return 1
	FAULTS="failslab=$slab% fail_page_alloc=$page% sleeping=$sleeping fail_request=$efail% delay_request=$edelay%"
}

# injected_now: failures injected since arm (allocations failed, requests
# failed or delayed).
injected_now() {
	_n=0
	for _a in failslab fail_page_alloc acompd/fail_request acompd/delay_request; do
		_n=$((_n + BUDGET - $(left "$_a")))
	done
	echo $_n
}

# lost_in FILE: pages the round's workloads found wrong (memstress
# mismatches, faultio damaged pages), summed.
lost_in() {
	sed -n -e 's/.* mismatches=\([0-9]*\) .*/\1/p' -e 's/.* damaged=\([0-9]*\)$/\1/p' "$1" |
		awk '{ t += $1 } END { print t + 0 }'
}

# failed_writes_in FILE: faultio's writes that ended with an error.
failed_writes_in() {
	sed -n 's/^faultio: .* failed=\([0-9]*\) .*/\1/p' "$1" | awk '{ t += $1 } END { print t + 0 }'
}

round_zram_swap() {
	zram_setup "$ALG" 256M && mkswap /dev/zram0 >/dev/null && swapon /dev/zram0 || return 2
	arm || return 2
	memstress_cg 24M -m 32 -P 2 -p 2 -o both -f >/dev/null
	rc=$?
	fault_disarm $ATTRS
	swapoff /dev/zram0
	cp /tmp/memstress.out /tmp/round.out
	return $rc
}

round_zswap() {
	swapdisk_on && zswap_param zpool "$POOL" && zswap_param compressor "$ALG" &&
		zswap_param enabled Y || return 2
	arm || return 2
	memstress_cg 24M -m 32 -P 2 -p 2 -o both -f >/dev/null
	rc=$?
	fault_disarm $ATTRS
	swapdisk_off
	zswap_param enabled N
	cp /tmp/memstress.out /tmp/round.out
	return $rc
}

round_zram_io() {
	zram_setup "$ALG" 16M || return 2
	arm || return 2
	faultio /dev/zram0 16 65536 2 >/tmp/faultio.out 2>&1
	rc=$?
	fault_disarm $ATTRS
	[ "$rc" = 0 ] && verified_pages faultio /tmp/faultio.out
	cp /tmp/faultio.out /tmp/round.out
	return $rc
}

round_mixed() {
	zram_setup "$ALG" 16M && swapdisk_on && zswap_param zpool "$POOL" &&
		zswap_param compressor "$ALG" && zswap_param enabled Y || return 2
	arm || return 2
	(faultio /dev/zram0 16 65536 2 >/tmp/faultio.out 2>&1; echo $? >/tmp/faultio.rc) &
	cpu1_cycling memstress_cg 24M -m 32 -P 2 -p 2 -o both -f >/dev/null
	rc=$?
	wait
	fault_disarm $ATTRS
	swapdisk_off
	zswap_param enabled N
	frc=$(cat /tmp/faultio.rc)
	[ "$frc" = 0 ] && verified_pages faultio /tmp/faultio.out
	cat /tmp/memstress.out /tmp/faultio.out >/tmp/round.out
	[ "$rc" = 0 ] && [ "$frc" = 0 ]
}

start=$(now)
rounds=0 lost=0 failed_rounds=0 faults=0 surfaced=0 compress_rejects=0 engine_errors=0
: >"$out/soak.txt"
kmemleak_mark
while [ $(($(now) - start)) -lt "$dur" ]; do
	rounds=$((rounds + 1))
	set -- zram_swap zswap zram_io mixed
	rnd 4; shift "$R"
	kind=$1
	set -- lz4 'acompd(lz4)' zstd 'acompd(zstd)' 'acompd(lzo-rle)'
	rnd 5; shift "$R"
	ALG=$1
	set -- zsmalloc zbud
	rnd 2; shift "$R"
	POOL=$1
	rnd 2
	if [ "$R" = 0 ]; then acompd_caller_runs Y; else acompd_caller_runs N; fi
	zr0=$(zswap_rejects) zc0=$(zswap_dbg reject_compress_fail) ie0=$(acompd_stat injected_errors)
	"round_$kind"
	rc=$?
	n=$(injected_now)
	# Errors surfaced to whoever wrote: faultio's failed writes where it
	# ran (they are the zram device's failed writes), else zram's failed
	# swap-outs (its counters start at 0 with the round's zram_setup);
	# and zswap's stores rejected for want of memory. Apart: zswap's
	# stores whose compression failed (incompressible pages included) and
	# the engine errors acompd injected (each one of those or of zram's).
	if grep -q '^faultio:' /tmp/round.out; then
		s=$(failed_writes_in /tmp/round.out)
	else
		s=$(zram_failed)
	fi
	s=$((s + $(zswap_rejects) - zr0))
	zc=$(($(zswap_dbg reject_compress_fail) - zc0)) ie=$(($(acompd_stat injected_errors) - ie0))
	l=$(lost_in /tmp/round.out)
	lost=$((lost + l)) faults=$((faults + n)) surfaced=$((surfaced + s))
	compress_rejects=$((compress_rejects + zc)) engine_errors=$((engine_errors + ie))
	[ "$rc" = 0 ] || failed_rounds=$((failed_rounds + 1))
	zram_reset
	line="soak: round $rounds t=$(($(now) - start))s kind=$kind alg=$ALG pool=$POOL caller_runs=$(cat /sys/module/acompd/parameters/caller_runs) $FAULTS rc=$rc injected=$n surfaced=$s zswap_compress_rejects=$zc engine_errors=$ie lost=$l"
	echo "$line" | tee -a "$out/soak.txt"
	[ "$rc" = 0 ] || grep -e MISMATCH -e DAMAGED -e 'memstress:' -e 'faultio:' /tmp/round.out | head -8 | tee -a "$out/soak.txt"
done
leaks=0
kmemleak_check >/tmp/leaks.out 2>&1 || leaks=1
awk '{ w[$1] += $2; v[$1] += $3 } END { printf "%d %d\n", w["memstress"] + w["faultio"], v["memstress"] + v["faultio"] }' \
	"$out/verified-pages" 2>/dev/null >/tmp/wv || echo "0 0" >/tmp/wv
read -r written verified_n </tmp/wv
line="soak: total seconds=$(($(now) - start)) rounds=$rounds failed_rounds=$failed_rounds bytes_written=$((written * 4096)) bytes_verified=$((verified_n * 4096)) faults_injected=$faults errors_surfaced=$surfaced zswap_compress_rejects=$compress_rejects engine_errors=$engine_errors pages_lost=$lost kmemleak=$leaks"
echo "$line" | tee -a "$out/soak.txt"
[ "$leaks" = 0 ] || head -20 /tmp/leaks.out | tee -a "$out/soak.txt"
zswap_param compressor lz4
[ "$lost" = 0 ] && [ "$failed_rounds" = 0 ] && [ "$leaks" = 0 ]
