#!/bin/sh
# acompd instances: created through crypto_user (NETLINK_CRYPTO NEWALG),
# reported as acomp and asynchronous over netlink and in /proc/crypto, with
# their self-tests passed; the workqueue and parameters are where documented.
# In the debug kernel acompd is a module: the first NEWALG loads it on demand
# (request_module("crypto-acompd") through /sbin/modprobe).
. /acomp/tests/tap.sh

# proc_entry NAME: the /proc/crypto block whose name is NAME.
proc_entry() {
	awk -v want="$1" '/^name/ { show = ($3 == want) } show' /proc/crypto
}

# proc_async_acomp NAME tested|untested: listed as an asynchronous acomp;
# tested: its self-test passed and the test manager had vectors for it (it
# marks an algorithm without any as passed too, after "alg: No test for
# NAME (DRIVER)"); untested: the test manager said it has none.
proc_async_acomp() {
	e=$(proc_entry "$1")
	echo "$e"
	echo "$e" | grep '^type *: acomp' >/dev/null &&
		echo "$e" | grep '^async *: yes' >/dev/null &&
		echo "$e" | grep '^driver *: acompd(' >/dev/null || return 1
	if dmesg | grep -F "alg: No test for $1 (" >/dev/null; then
		[ "$2" = untested ]
	else
		[ "$2" = tested ] && echo "$e" | grep '^selftest *: passed' >/dev/null
	fi
}

netlink_async_acomp() {
	cryptouser -n "$1" acomp | tee /tmp/cryptouser.out && grep -q 'async=yes' /tmp/cryptouser.out
}

# Earlier tests (zram through acompd, zswap's boot-time pool) loaded it: once
# they reset their devices and zswap left its acompd(lz4) pool (02-zswap-boot),
# nothing holds it, so it unloads; then nothing loads it until asked. zswap
# releases an old pool from a work item, after an RCU grace period: allow it
# a few seconds.
unloaded() {
	_try=0
	while grep -q '^acompd ' /proc/modules; do
		rmmod acompd && break
		_try=$((_try + 1))
		[ $_try -lt 20 ] || return 1
		sleep 0.5
	done
	! grep -q '^acompd ' /proc/modules
}
check "acompd is unloaded (nothing holds it) and stays so until something asks for it" unloaded
for alg in lzo lzo-rle lz4 lz4hc zstd deflate 842; do
	check "crypto_user: acompd($alg) instantiated and reported as an async acomp" \
		netlink_async_acomp "acompd($alg)"
	if [ "$alg" = 842 ]; then
		check "/proc/crypto: acompd(842) is type acomp, async; registered only: the test manager has no 842 vectors" \
			proc_async_acomp "acompd($alg)" untested
	else
		check "/proc/crypto: acompd($alg) is type acomp, async, selftest passed on the test manager's vectors" \
			proc_async_acomp "acompd($alg)" tested
	fi
done

# crypto_user looks algorithms up by cra_name; "lz4" has a scomp and a legacy
# compression entry, and either may answer. Both must be synchronous.
sync_lz4() {
	cryptouser lz4 scomp >/tmp/cryptouser.out
	cat /tmp/cryptouser.out
	grep -q 'async=no report=compress type=\(scomp\|compression\)' /tmp/cryptouser.out || return 1
	proc_entry lz4 | grep '^type *: scomp' >/dev/null && ! proc_entry lz4 | grep '^async *: yes' >/dev/null
}
check "the first request for an acompd instance loaded the acompd module" grep '^acompd ' /proc/modules
check "the plain lz4 entries stay synchronous" sync_lz4
check "crypto_user: acompd() of an unknown algorithm is refused (ENOENT)" \
	fails_with 'NEWALG acompd\(no-such-alg\): No such file or directory' cryptouser -n 'acompd(no-such-alg)' acomp
check "workqueue acompd is in sysfs with a cpumask (WQ_SYSFS)" \
	test -r /sys/devices/virtual/workqueue/acompd/cpumask
check "module parameters queue_len and max_workers exist" \
	test -r /sys/module/acompd/parameters/queue_len -a -r /sys/module/acompd/parameters/max_workers
tap_done
