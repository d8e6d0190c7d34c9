# shellcheck shell=sh
# TAP helpers for the in-guest tests (busybox sh). A test script prints one
# "ok N - what" or "not ok N - what" per check, diagnostics as "# ...", and its
# plan last ("1..N"): a script that dies early has no plan, and the host driver
# counts that as a failure.

TAP_N=0
TAP_FAILED=0

ok() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $*"
}

not_ok() {
	TAP_N=$((TAP_N + 1))
	TAP_FAILED=$((TAP_FAILED + 1))
	echo "not ok $TAP_N - $*"
}

# diag TEXT: TEXT as diagnostics, every line of it prefixed with "# ".
diag() {
	printf '%s\n' "$*" | sed 's/^/# /'
}

# check DESCRIPTION COMMAND...: one test, passing when COMMAND succeeds. On
# failure the last lines of its output become diagnostics.
check() {
	_desc=$1
	shift
	if "$@" >/tmp/tap-check.out 2>&1; then
		ok "$_desc"
	else
		not_ok "$_desc (exit $?)"
		tail -n 15 /tmp/tap-check.out | sed 's/^/#   /'
	fi
}

tap_done() {
	echo "1..$TAP_N"
	[ "$TAP_FAILED" -eq 0 ]
}

# Read one counter from /proc/vmstat.
vmstat() {
	awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print "missing" }' /proc/vmstat
}

# cpu1_cycling CMD...: run CMD in the background while CPU 1 is taken offline
# and back in a loop until CMD ends. Succeeds when CMD did, CPU 1 went offline
# at least once and is online again; prints the number of cycles.
cpu1_cycling() {
	_cpu1=/sys/devices/system/cpu/cpu1/online
	rm -f /tmp/cycling.rc
	(
		_rc=0
		"$@" || _rc=1
		echo "$_rc" >/tmp/cycling.rc.new && mv /tmp/cycling.rc.new /tmp/cycling.rc
	) &
	_n=0
	while [ ! -e /tmp/cycling.rc ]; do
		echo 0 >"$_cpu1" && echo 1 >"$_cpu1" || { wait; return 1; }
		_n=$((_n + 1))
	done
	wait
	echo "cpu1 offline/online cycles: $_n; exit: $(cat /tmp/cycling.rc)"
	[ "$_n" -gt 0 ] && [ "$(cat /tmp/cycling.rc)" = 0 ] && [ "$(cat "$_cpu1")" = 1 ]
}

MEMSTRESS_CG=/sys/fs/cgroup/acomp-test
# memstress_cg LIMIT ARGS...: memstress in a fresh cgroup limited to LIMIT;
# output in /tmp/memstress.out, status returned. MEMSTRESS_ZSWAP_MAX sets the
# cgroup's memory.zswap.max: 6.1's zswap charges its compressed pages to the
# cgroup and writes nothing back for it, so without a bound the pool alone
# can fill memory.max and the cgroup goes out of memory (seen: 24.2 MB of
# zswap in a 24M cgroup); beyond the bound, pages go to the swap disk.
memstress_cg() {
	_limit=$1
	shift
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control
	mkdir -p "$MEMSTRESS_CG"
	echo "$_limit" >"$MEMSTRESS_CG/memory.max"
	if [ -n "${MEMSTRESS_ZSWAP_MAX:-}" ]; then
		echo "$MEMSTRESS_ZSWAP_MAX" >"$MEMSTRESS_CG/memory.zswap.max" || return 1
	fi
	sh -c "echo \$\$ >$MEMSTRESS_CG/cgroup.procs && exec memstress $*" >/tmp/memstress.out 2>&1
	_rc=$?
	cat /tmp/memstress.out
	rmdir "$MEMSTRESS_CG"
	return $_rc
}

# acompd_caller_runs Y|N: acompd's caller-runs policy (N: every request to a
# worker, the fully asynchronous behaviour); loads acompd if it is a module.
acompd_caller_runs() {
	modprobe acompd 2>/dev/null
	echo "$1" >/sys/module/acompd/parameters/caller_runs &&
		[ "$(cat /sys/module/acompd/parameters/caller_runs)" = "$1" ]
}

# acompd_stat NAME: one of acompd's debugfs counters.
acompd_stat() { cat "/sys/kernel/debug/acompd/$1" 2>/dev/null || echo missing; }
