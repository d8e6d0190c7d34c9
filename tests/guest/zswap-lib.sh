# shellcheck shell=sh
# zswap helpers shared by the in-guest tests. The swap disk is the second
# virtio disk (tests/run.sh attaches it; the first is the results outbox).

ZSWAP=/sys/module/zswap/parameters
ZSWAP_DBG=/sys/kernel/debug/zswap
SWAPDEV=/dev/vdb

# zswap_param NAME VALUE: set a zswap parameter and read it back.
zswap_param() {
	echo "$2" >"$ZSWAP/$1" && [ "$(cat "$ZSWAP/$1")" = "$2" ]
}

zswap_dbg() { cat "$ZSWAP_DBG/$1" 2>/dev/null || echo missing; }

swapdisk_on() {
	grep -q "^$SWAPDEV " /proc/swaps && return 0
	mkswap "$SWAPDEV" >/dev/null && swapon "$SWAPDEV"
}

swapdisk_off() {
	grep -q "^$SWAPDEV " /proc/swaps || return 0
	swapoff "$SWAPDEV"
}
