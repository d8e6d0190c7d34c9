# shellcheck shell=sh
# acompd's knobs and counters in the guest; installed as /acomp/lib/acompd.sh.

# acompd_caller_runs Y|N: acompd's caller-runs policy (N: every request to a
# worker, the fully asynchronous behaviour); loads acompd if it is a module.
acompd_caller_runs() {
	modprobe acompd 2>/dev/null
	echo "$1" >/sys/module/acompd/parameters/caller_runs &&
		[ "$(cat /sys/module/acompd/parameters/caller_runs)" = "$1" ]
}

# acompd_stat NAME: one of acompd's debugfs counters.
acompd_stat() { cat "/sys/kernel/debug/acompd/$1" 2>/dev/null || echo missing; }
