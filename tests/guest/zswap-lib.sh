# shellcheck shell=sh
# zswap helpers shared by the in-guest tests. The swap disk is the second
# virtio disk (tests/run.sh attaches it; the first is the results outbox).

ZSWAP=/sys/module/zswap/parameters
ZSWAP_DBG=/sys/kernel/debug/zswap
SWAPDEV=/dev/vdb
CG=/sys/fs/cgroup/acomp-zswap

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

# memstress_cg LIMIT ARGS...: memstress in a fresh cgroup limited to LIMIT;
# output in /tmp/memstress.out, status returned.
memstress_cg() {
	_limit=$1
	shift
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control
	mkdir -p "$CG"
	echo "$_limit" >"$CG/memory.max"
	sh -c "echo \$\$ >$CG/cgroup.procs && exec memstress $*" >/tmp/memstress.out 2>&1
	_rc=$?
	cat /tmp/memstress.out
	rmdir "$CG"
	return $_rc
}
