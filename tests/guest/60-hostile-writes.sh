#!/bin/sh
# Malformed writes to the knobs the series adds or changes (issue 20,
# hostile input): algorithm names that are empty, overlong, of unknown
# algorithms, nested (acompd over acompd: its inner algorithm must be
# synchronous) or with unbalanced parentheses, to zram's comp_algorithm and
# zswap's compressor; values out of range or not numbers to zram's
# async_depth and acompd's module parameters. Each is refused with an error
# and changes nothing: the knob reads back as before, and the device or
# pool still works with what it had.
. /acomp/tests/tap.sh
. /acomp/lib/zram.sh
. /acomp/lib/zswap.sh

LONG=$(printf 'lz4%0200d' 0)
NAMES="'' $LONG no-such-alg acompd() acompd(acompd(lz4)) acompd(lz4 acompd(lz4)) (lz4) acompd(lz4)x acompd(no-such-alg) acompd(lz4,zstd)"

# knob FILE: its value; of comp_algorithm, the selected name (the list
# around it shows the algorithms the kernel has).
knob() {
	case $1 in
	*/comp_algorithm) sed -n 's/.*\[\([^]]*\)\].*/\1/p' "$1" ;;
	*) cat "$1" ;;
	esac
}

# refused_all FILE: every malformed name of NAMES is refused by FILE (the
# write fails) and FILE reads back unchanged; names the accepted ones.
refused_all() {
	before=$(knob "$1")
	bad=
	for n in $NAMES; do
		[ "$n" = "''" ] && n=
		if (echo "$n" >"$1") 2>/dev/null; then
			bad="$bad accepted:'$n'"
		fi
		[ "$(knob "$1")" = "$before" ] || bad="$bad changed-by:'$n'"
	done
	[ -z "$bad" ] || { echo "$1:$bad"; return 1; }
}

# zram_still_works ALG: the selection survived and the device takes a
# verified write.
zram_still_works() {
	grep -qF "[$1]" "$ZRAM/comp_algorithm" || return 1
	echo 16M >"$ZRAM/disksize" || return 1
	dd if=/acomp/corpus.bin of=/dev/zram0 bs=64k conv=fsync 2>/dev/null || return 1
	[ "$(md5sum </acomp/corpus.bin | cut -d' ' -f1)" = \
		"$(head -c "$(stat -c %s /acomp/corpus.bin)" /dev/zram0 | md5sum | cut -d' ' -f1)" ]
}

# uint_refused FILE: not numbers and values out of an unsigned int's range
# are refused, FILE unchanged.
uint_refused() {
	before=$(cat "$1")
	bad=
	for v in '' abc -1 4294967296 99999999999999999999 1.5 0x; do
		if (echo "$v" >"$1") 2>/dev/null; then
			bad="$bad accepted:'$v'"
		fi
		[ "$(cat "$1")" = "$before" ] || bad="$bad changed-by:'$v'"
	done
	[ -z "$bad" ] || { echo "$1:$bad"; return 1; }
}

zram_reset
check "zram comp_algorithm (lz4 selected): malformed names refused, selection unchanged" \
	eval 'echo lz4 >"$ZRAM/comp_algorithm" && refused_all "$ZRAM/comp_algorithm"'
check "zram comp_algorithm (acompd(lz4) selected): malformed names refused, selection unchanged" \
	eval 'echo "acompd(lz4)" >"$ZRAM/comp_algorithm" && refused_all "$ZRAM/comp_algorithm"'
check "zram: the device works with the selection kept through the refusals" zram_still_works 'acompd(lz4)'
zram_reset
check "zram async_depth: non-numbers and out-of-range values refused, unchanged" \
	uint_refused "$ZRAM/async_depth"

check "zswap compressor (acompd(lz4)): malformed names refused, unchanged" \
	eval 'zswap_param compressor "acompd(lz4)" && refused_all "$ZSWAP/compressor"'
check "zswap zpool: an unknown or empty zpool is refused, unchanged" \
	eval 'before=$(cat "$ZSWAP/zpool") && ! (echo no-such-zpool >"$ZSWAP/zpool") 2>/dev/null &&
		! (echo >"$ZSWAP/zpool") 2>/dev/null && [ "$(cat "$ZSWAP/zpool")" = "$before" ]'

# values_refused FILE V...: each V is refused (the write fails), FILE unchanged.
values_refused() {
	_f=$1
	shift
	before=$(cat "$_f")
	bad=
	for v in "$@"; do
		(echo "$v" >"$_f") 2>/dev/null && bad="$bad accepted:'$v'"
		[ "$(cat "$_f")" = "$before" ] || bad="$bad changed-by:'$v'"
	done
	[ -z "$bad" ] || { echo "$_f:$bad"; return 1; }
}

modprobe acompd
AP=/sys/module/acompd/parameters
check "acompd queue_len: non-numbers and out-of-range values refused, unchanged" \
	uint_refused $AP/queue_len
check "acompd queue_len: 0 and more than 65536 refused (no queue, an unbounded one), unchanged" \
	values_refused $AP/queue_len 0 65537 4294967295
check "acompd max_workers: non-numbers and out-of-range values refused, unchanged" \
	uint_refused $AP/max_workers
check "acompd max_workers: more than NR_CPUS refused, unchanged; 0 (one per CPU) accepted" \
	eval 'values_refused $AP/max_workers 8193 4294967295 && echo 0 >$AP/max_workers'
check "acompd caller_runs: a non-boolean is refused, unchanged" \
	eval 'before=$(cat /sys/module/acompd/parameters/caller_runs) &&
		! (echo maybe >/sys/module/acompd/parameters/caller_runs) 2>/dev/null &&
		[ "$(cat /sys/module/acompd/parameters/caller_runs)" = "$before" ]'
tap_done
