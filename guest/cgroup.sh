# shellcheck shell=sh
# Memory pressure from a cgroup v2 memory.max, for the in-guest tests and
# the benchmark scenarios; installed as /acomp/lib/cgroup.sh.

# cg_create DIR LIMIT [ZSWAP_MAX]: a fresh cgroup DIR limited to LIMIT
# (memory.max) and, when given, memory.zswap.max ZSWAP_MAX: 6.1's zswap
# charges its compressed pages to the cgroup and writes nothing back for it,
# so without a bound the pool alone can fill memory.max and the cgroup goes
# out of memory (seen: 24.2 MB of zswap in a 24M cgroup); beyond the bound,
# pages go to the swap disk.
cg_create() {
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control || return 1
	mkdir -p "$1" || return 1
	echo "$2" >"$1/memory.max" || return 1
	if [ -n "${3:-}" ]; then
		echo "$3" >"$1/memory.zswap.max" || return 1
	fi
}

# CG_EXEC: a sh -c script that joins the cgroup named by its first argument
# (none when empty) and execs the rest: sh -c "$CG_EXEC" sh DIR CMD ARGS...
# (an external command, so that taskset and the like can run it).
# shellcheck disable=SC2016 # expanded by the sh that runs it
CG_EXEC='[ -z "$1" ] || echo $$ >"$1/cgroup.procs" || exit 125; shift; exec "$@"'

# cg_exec DIR CMD ARGS...: CMD in cgroup DIR (none when DIR is empty).
cg_exec() {
	sh -c "$CG_EXEC" sh "$@"
}

# cg_remove DIR: remove the cgroup (its tasks have ended).
cg_remove() {
	rmdir "$1"
}

# verified_pages TOOL OUTPUT: in a test or soak run (ACOMP_OUT set), add
# the pages TOOL (memstress, faultio) wrote and then read back intact, as
# its OUTPUT line says, to ACOMP_OUT/verified-pages ("TOOL WRITTEN
# VERIFIED"); the host sums them. Only for a run that found nothing wrong.
verified_pages() {
	[ -n "${ACOMP_OUT:-}" ] || return 0
	sed -n -e 's/.* pages=\([0-9]*\) touched=\([0-9]*\) .*/\1 \2/p' \
		-e 's/.* pages_written=\([0-9]*\) pages_verified=\([0-9]*\) .*/\1 \2/p' "$2" |
		head -1 | sed "s/^/$1 /" >>"$ACOMP_OUT/verified-pages"
}

MEMSTRESS_CG=/sys/fs/cgroup/acomp-test
# memstress_cg LIMIT ARGS...: memstress in a fresh cgroup limited to LIMIT;
# output in /tmp/memstress.out, status returned. MEMSTRESS_ZSWAP_MAX sets the
# cgroup's memory.zswap.max (cg_create).
memstress_cg() {
	_limit=$1
	shift
	cg_create "$MEMSTRESS_CG" "$_limit" "${MEMSTRESS_ZSWAP_MAX:-}" || return 1
	cg_exec "$MEMSTRESS_CG" memstress "$@" >/tmp/memstress.out 2>&1
	_rc=$?
	cat /tmp/memstress.out
	[ "$_rc" = 0 ] && verified_pages memstress /tmp/memstress.out
	cg_remove "$MEMSTRESS_CG"
	return $_rc
}
