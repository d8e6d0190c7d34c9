# shellcheck shell=sh disable=SC2154 # out, snapshot, per_alg...: bench/guest.sh
# Scenario zram-shmem (sourced by bench/guest.sh): zram0 (ACOMP_ZRAM_SIZE,
# default 512M) as the swap of tmpfs pages. A task in the cgroup limited to
# ACOMP_MEMMAX (swap_load; default 64M) writes ACOMP_SHMEM_MIB MiB (default
# 192) of 2 MiB tmpfs files, each one of eight rotations of the corpus
# (/acomp/corpus.bin: mixed pages, as pagebench compresses), reads every
# file back through md5sum against its rotation's sum, and removes them: the
# shmem swap path (shmem_writepage, shmem_swapin), not anonymous memory.
# Per algorithm in OUT/runs/N/: shmem.txt, its result line
#   shmem: files=N mib=M write_s=W read_s=R mismatches=K
# and what swap_load leaves (memory.max, memcg-events, the zram samples,
# the snapshot before and after). Parser: bench/parse.py shmem_run.

SHMEM_DIR=/tmp/acomp-shmem
SHMEM_SUMS=/tmp/acomp-shmem.sums
CORPUS=/acomp/corpus.bin

# rotation R: the corpus rotated by R * 61 pages (R = 0..7) on stdout.
rotation() {
	_skip=$(($1 * 61))
	dd if=$CORPUS bs=4096 skip=$_skip 2>/dev/null
	[ "$_skip" = 0 ] || dd if=$CORPUS bs=4096 count=$_skip 2>/dev/null
}

# shmem_work: the workload itself, run by swap_load in the cgroup (this
# script again, with SHMEM_WORK=1: an external command).
shmem_work() {
	files=$((${ACOMP_SHMEM_MIB:-192} / 2))
	t0=$(uptime_cs)
	i=0
	while [ $i -lt $files ]; do
		rotation $((i % 8)) >"$SHMEM_DIR/f$i" || return 1
		i=$((i + 1))
	done
	t1=$(uptime_cs)
	bad=0
	i=0
	while [ $i -lt $files ]; do
		sum=$(md5sum <"$SHMEM_DIR/f$i")
		[ "${sum%% *}" = "$(sed -n "$((i % 8 + 1))p" $SHMEM_SUMS)" ] || bad=$((bad + 1))
		i=$((i + 1))
	done
	t2=$(uptime_cs)
	rm -f "$SHMEM_DIR"/f*
	echo "shmem: files=$files mib=$((files * 2)) write_s=$(((t1 - t0) / 100)).$(printf %02d $(((t1 - t0) % 100)))" \
		"read_s=$(((t2 - t1) / 100)).$(printf %02d $(((t2 - t1) % 100))) mismatches=$bad"
	[ "$bad" = 0 ]
}

if [ "${SHMEM_WORK:-}" = 1 ]; then
	. /acomp/lib/stat.sh
	shmem_work
	exit
fi

zram_shmem() {
	mkdir -p "$SHMEM_DIR"
	mount -t tmpfs -o size=$((${ACOMP_SHMEM_MIB:-192} + 16))m acomp-shmem "$SHMEM_DIR" || return 1
	SWAP_OUT=shmem.txt swap_load /dev/zram0 env SHMEM_WORK=1 sh /acomp/bench/scenarios/zram-shmem.sh
	rc=$?
	umount "$SHMEM_DIR"
	return $rc
}

# The expected sums, one line per rotation, outside the cgroup and before
# any algorithm's run.
for r in 0 1 2 3 4 5 6 7; do
	rotation $r | md5sum | cut -d' ' -f1
done >$SHMEM_SUMS
per_alg zram_shmem "${ACOMP_ZRAM_SIZE:-512M}"
