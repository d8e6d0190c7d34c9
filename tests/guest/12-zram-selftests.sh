#!/bin/sh
# The kernel's own zram selftest (tools/testing/selftests/zram: zram01 makes
# ext4 on a new zram device with lzo and fills it, checking the compression
# ratio; zram02 makes it swap), run as shipped. The upstream scripts print
# "FAIL ..." for most failed steps without failing, so any FAIL line fails the
# check here too. (zram01 fills ext4 with one dd process per KiB: about 4
# minutes on the debug kernel under TCG, so the variant with zram01 on
# acompd(lz4) -- selftest zram-acompd 'acompd(lz4)' -- passed once by hand
# but is not part of make test.)
. /acomp/tests/tap.sh

src=/acomp/selftests/zram

# selftest NAME ALG: run zram.sh from a copy whose zram01 uses ALG.
selftest() {
	rm -rf "/tmp/$1" && cp -r "$src" "/tmp/$1" || return 1
	sed -i "s/^zram_algs=.*/zram_algs=\"$2\"/" "/tmp/$1/zram01.sh"
	grep -q "^zram_algs=\"$2\"" "/tmp/$1/zram01.sh" || { echo "could not set $2"; return 1; }
	# The scripts count /dev/zram* to guess the next device number: only
	# zram0 may exist.
	[ "$(ls /dev/zram*)" = /dev/zram0 ] || { echo "other zram devices exist: $(ls /dev/zram*)"; return 1; }
	(cd "/tmp/$1" && ./zram.sh) >"/tmp/$1.log" 2>&1
	rc=$?
	cat "/tmp/$1.log"
	echo "zram.sh exit $rc"
	[ $rc = 0 ] && ! grep -q FAIL "/tmp/$1.log" &&
		grep -q '^zram01 : \[PASS\]' "/tmp/$1.log" &&
		grep -q '^zram02 : \[PASS\]' "/tmp/$1.log" &&
		grep -q "comp_algorithm = '$2'" "/tmp/$1.log" &&
		grep -q 'zram compression ratio: .*OK' "/tmp/$1.log" &&
		[ "$(ls /dev/zram*)" = /dev/zram0 ]
}

check "the kernel's zram selftest is in the initramfs" test -x "$src/zram.sh"
check "tools/testing/selftests/zram passes (zram01 with lzo, zram02)" selftest zram-lzo lzo

tap_done
