#!/bin/sh
# zswap.compressor=acompd(lz4) on the kernel command line (tests/run.sh boots
# with it): zswap's initial pool uses the asynchronous engine (in the debug
# kernel acompd is a module, loaded on demand at zswap's init). zswap then
# switches to lz4 at run time, which releases the acompd pool (30-acompd
# unloads the module).
. /acomp/tests/tap.sh
. /acomp/lib/zswap.sh

boot_param() {
	grep -o 'zswap[^ ]*' /proc/cmdline
	dmesg | grep 'zswap:'
	grep -q 'zswap.compressor=acompd(lz4)' /proc/cmdline &&
		[ "$(cat "$ZSWAP/compressor")" = 'acompd(lz4)' ] &&
		dmesg | grep 'zswap: loaded using pool acompd(lz4)/' >/dev/null
}

check "zswap.compressor=acompd(lz4) at boot: the initial pool uses it" boot_param
check "zswap switches from acompd(lz4) to lz4 at run time" zswap_param compressor lz4
tap_done
