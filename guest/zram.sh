# shellcheck shell=sh
# zram helpers for the guest, shared by the in-guest tests (tests/guest) and
# the benchmark scenarios (bench/scenarios); installed as /acomp/lib/zram.sh.

ZRAM=/sys/block/zram0

# zram_setup ALG SIZE: reset zram0 and give it an algorithm and a disk size;
# fails when the kernel lacks ALG (the write is refused) or did not select it.
zram_setup() {
	swapoff /dev/zram0 2>/dev/null
	echo 1 >"$ZRAM/reset" || return 1
	echo "$1" >"$ZRAM/comp_algorithm" || return 1
	echo "$2" >"$ZRAM/disksize" || return 1
	grep -qF "[$1]" "$ZRAM/comp_algorithm"
}

zram_reset() {
	swapoff /dev/zram0 2>/dev/null
	echo 1 >"$ZRAM/reset"
}

# mm_stat field N (1 orig_data_size, 2 compr_data_size, 3 mem_used_total, ...)
zram_mm_stat() {
	awk -v n="$1" '{ print $n }' "$ZRAM/mm_stat"
}
