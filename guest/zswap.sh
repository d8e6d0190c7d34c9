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

# zswap_watch_start: sample how many compressed entries zswap holds
# (stored_pages less same_filled_pages, which zswap keeps without the
# compressor or the zpool) every 0.2 s, in a process that no `wait` of the
# caller's waits for, until zswap_watch_stop, which prints the most seen.
zswap_watch_start() {
	rm -f /tmp/zswap-watch.stop /tmp/zswap-watch.done
	echo 0 >/tmp/zswap-watch.max
	( (
		_m=0
		while [ ! -e /tmp/zswap-watch.stop ]; do
			_s=$(cat "$ZSWAP_DBG/stored_pages") && _f=$(cat "$ZSWAP_DBG/same_filled_pages") || break
			if [ $((_s - _f)) -gt "$_m" ]; then
				_m=$((_s - _f))
				echo "$_m" >/tmp/zswap-watch.max
			fi
			sleep 0.2
		done
		touch /tmp/zswap-watch.done
	) & )
}

zswap_watch_stop() {
	touch /tmp/zswap-watch.stop
	_n=0
	while [ ! -e /tmp/zswap-watch.done ] && [ $_n -lt 50 ]; do
		sleep 0.1
		_n=$((_n + 1))
	done
	cat /tmp/zswap-watch.max
}

# zswap_stored OUT0 OUT1 IN0 IN1 COMPRESSED: zswpout and zswpin (read before
# and after a run) both moved, by at least 1024 pages out, and zswap held at
# least 256 compressed entries at once (COMPRESSED, from zswap_watch_stop):
# zswap really compressed, stored and loaded pages, rather than rejecting
# every store to the swap disk (same-filled pages alone would move zswpout
# and zswpin).
zswap_stored() {
	for _v in "$@"; do
		case $_v in '' | *[!0-9]*) echo "zswap's counters unreadable: $*"; return 1 ;; esac
	done
	[ $(($2 - $1)) -ge 1024 ] && [ $(($4 - $3)) -gt 0 ] && [ "$5" -ge 256 ]
}
