#!/bin/sh
# Malformed writes to the knobs the series adds or changes (issue 20,
# hostile input): algorithm names that are empty, overlong, of unknown
# algorithms, nested (acompd over acompd: its inner algorithm must be
# synchronous) or with unbalanced parentheses, to zram's comp_algorithm and
# zswap's compressor; values out of range or not numbers to zram's
# async_depth and acompd's module parameters. Each knob is first read and
# given a valid value, which it accepts; each malformed write is then refused
# by the write itself with the errno expected (not because the knob is
# missing) and changes nothing: the knob reads back as before, and the
# device or pool still works with what it had.
. /acomp/tests/tap.sh
. /acomp/lib/zram.sh
. /acomp/lib/zswap.sh

LONG=$(printf 'lz4%0200d' 0)
NAMES="@empty@ $LONG no-such-alg acompd() acompd(acompd(lz4)) acompd(lz4 acompd(lz4)) (lz4) acompd(lz4)x acompd(no-such-alg) acompd(lz4,zstd)"

# knob FILE: its value; of comp_algorithm, the selected name (the list
# around it shows the algorithms the kernel has). Fails when FILE cannot be
# read or reads empty.
knob() {
	case $1 in
	*/comp_algorithm) _k=$(sed -n 's/.*\[\([^]]*\)\].*/\1/p' "$1") ;;
	*) _k=$(cat "$1") ;;
	esac || return 1
	[ -n "$_k" ] && echo "$_k"
}

# valid_then_refused FILE VALID ERRORS V...: FILE accepts VALID (and reads
# it back), then refuses each V (@empty@: an empty line) with one of ERRORS and reads back VALID
# after each; names the values accepted, refused otherwise, or changing it.
valid_then_refused() {
	_vr_f=$1 _vr_valid=$2 _vr_errs=$3
	shift 3
	echo "$_vr_valid" >"$_vr_f" && before=$(knob "$_vr_f") && [ "$before" = "$_vr_valid" ] ||
		{ echo "$_vr_f: the valid value '$_vr_valid' was not accepted and read back"; return 1; }
	bad=
	for v in "$@"; do
		[ "$v" = @empty@ ] && v=
		write_refused "$_vr_f" "$v" "$_vr_errs" >/tmp/refused.out || bad="$bad '$v': $(tail -2 /tmp/refused.out | paste -sd" ");"
		[ "$(knob "$_vr_f")" = "$before" ] || bad="$bad changed-by:'$v'"
	done
	[ -z "$bad" ] || { echo "$_vr_f:$bad"; return 1; }
}

# refused_all FILE VALID ERRORS: every malformed name of NAMES is refused
# (valid_then_refused).
refused_all() {
	# shellcheck disable=SC2086 # NAMES is a list
	valid_then_refused "$1" "$2" "$3" $NAMES
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

# uint_refused FILE VALID: not numbers and values out of an unsigned int's
# range are refused (EINVAL, ERANGE), FILE unchanged.
uint_refused() {
	valid_then_refused "$1" "$2" 'Invalid argument|Numerical result out of range' \
		@empty@ abc -1 4294967296 99999999999999999999 1.5 0x
}

zram_reset
check "zram comp_algorithm (lz4 selected): malformed names refused (EINVAL), selection unchanged" \
	refused_all "$ZRAM/comp_algorithm" lz4 'Invalid argument'
check "zram comp_algorithm (acompd(lz4) selected): malformed names refused (EINVAL), selection unchanged" \
	refused_all "$ZRAM/comp_algorithm" 'acompd(lz4)' 'Invalid argument'
check "zram: the device works with the selection kept through the refusals" zram_still_works 'acompd(lz4)'
zram_reset
check "zram async_depth: non-numbers and out-of-range values refused (EINVAL, ERANGE), unchanged" \
	uint_refused "$ZRAM/async_depth" "$(cat "$ZRAM/async_depth")"

# zswap refuses every name it has no compressor or zpool for, empty and
# overlong ones too, with ENOENT (EINVAL would be a pool it failed to create).
check "zswap compressor (acompd(lz4)): malformed names refused (ENOENT), unchanged" \
	refused_all "$ZSWAP/compressor" 'acompd(lz4)' 'No such file or directory'
check "zswap zpool: an unknown or empty zpool is refused (ENOENT), unchanged" \
	valid_then_refused "$ZSWAP/zpool" zbud 'No such file or directory' no-such-zpool @empty@

modprobe acompd
AP=/sys/module/acompd/parameters
ql=$(cat $AP/queue_len)
check "acompd queue_len: non-numbers and out-of-range values refused (EINVAL, ERANGE), unchanged" \
	uint_refused $AP/queue_len "$ql"
check "acompd queue_len: 0 and more than 65536 refused (ERANGE: no queue, an unbounded one), unchanged" \
	valid_then_refused $AP/queue_len "$ql" 'Numerical result out of range' 0 65537 4294967295
check "acompd max_workers: non-numbers and out-of-range values refused (EINVAL, ERANGE), unchanged" \
	uint_refused $AP/max_workers 1
# nr_cpu_ids: the highest possible CPU's number, plus one.
ncpu=$(($(sed 's/.*[-,]//' /sys/devices/system/cpu/possible) + 1))
check "acompd max_workers: more than the $ncpu possible CPUs refused (ERANGE), unchanged; 0 (one per CPU) accepted" \
	eval 'valid_then_refused $AP/max_workers 1 "Numerical result out of range" $((ncpu + 1)) 8193 4294967295 &&
		echo 0 >$AP/max_workers && [ "$(cat $AP/max_workers)" = 0 ]'
check "acompd caller_runs: a non-boolean is refused (EINVAL), unchanged" \
	valid_then_refused $AP/caller_runs Y 'Invalid argument' maybe 2
tap_done
