# shellcheck shell=sh
# zswap helpers for the guest, shared by the in-guest tests and the
# benchmark scenarios; installed as /acomp/lib/zswap.sh. The swap disk is
# the second virtio disk (tests/run.sh and bench.sh attach it; the first is
# the results outbox).

ZSWAP=/sys/module/zswap/parameters
ZSWAP_DBG=/sys/kernel/debug/zswap
SWAPDEV=/dev/vdb

# zswap_param NAME VALUE: set a zswap parameter and read it back.
zswap_param() {
	echo "$2" >"$ZSWAP/$1" && [ "$(cat "$ZSWAP/$1")" = "$2" ]
}

zswap_dbg() { cat "$ZSWAP_DBG/$1" 2>/dev/null || echo missing; }

# zswap_stats: zswap's debugfs statistics, one "name value" per line.
zswap_stats() {
	for f in "$ZSWAP_DBG"/*; do
		[ -f "$f" ] && echo "${f##*/} $(cat "$f")"
	done
}

swapdisk_on() {
	grep -q "^$SWAPDEV " /proc/swaps && return 0
	mkswap "$SWAPDEV" >/dev/null && swapon "$SWAPDEV"
}

swapdisk_off() {
	grep -q "^$SWAPDEV " /proc/swaps || return 0
	swapoff "$SWAPDEV"
}

# zswap_switch_until FILE COMPRESSOR:ZPOOL...: until FILE exists, set
# zswap's compressor and zpool to each pair in turn, one pair a second;
# ZSWAP_SWITCHES counts the pairs set, ZSWAP_REFUSED the writes refused.
zswap_switch_until() {
	_until=$1
	shift
	ZSWAP_SWITCHES=0 ZSWAP_REFUSED=0
	while [ ! -e "$_until" ]; do
		for _c in "$@"; do
			[ -e "$_until" ] && break
			zswap_param compressor "${_c%%:*}" || ZSWAP_REFUSED=$((ZSWAP_REFUSED + 1))
			zswap_param zpool "${_c#*:}" || ZSWAP_REFUSED=$((ZSWAP_REFUSED + 1))
			ZSWAP_SWITCHES=$((ZSWAP_SWITCHES + 1))
			sleep 1
		done
	done
}

# zswap_stored OUT0 OUT1 IN0 IN1: zswpout and zswpin (read before and after
# a run) both moved, by at least 1024 pages out: zswap really stored and
# loaded pages, rather than rejecting every store to the swap disk.
zswap_stored() {
	for _v in "$@"; do
		case $_v in '' | *[!0-9]*) echo "zswpout/zswpin unreadable: $*"; return 1 ;; esac
	done
	[ $(($2 - $1)) -ge 1024 ] && [ $(($4 - $3)) -gt 0 ]
}
