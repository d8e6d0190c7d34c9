#!/bin/sh
# acompd as a module: unloading is refused while a transform exists and
# works once the last one is freed, taking its instances and workqueue with
# it; a later request loads it again. Requests keep completing, all correct,
# while CPU 1 goes offline and online under them.
. /acomp/tests/tap.sh

D=/sys/kernel/debug/acomp_pagebench


# hotplug_run: a depth-32 acompd(lz4) run while CPU 1 is taken offline and
# back until it ends; the run must be clean and CPU 1 toggled at least once.
hotplug_run() {
	cpu1_cycling sh -c "echo 'alg=acompd(lz4) depth=32 iters=8' >$D/run" || return 1
	cat "$D/result"
	grep -q 'op=compress .* requests=4096 errors=0 mismatches=0' "$D/result" &&
		grep -q 'op=decompress .* requests=4096 errors=0 mismatches=0' "$D/result"
}

# held_run: a run on the transform "hold" keeps (alg=held), not a new one.
held_run() {
	echo 'alg=held depth=4 iters=1' >"$D/run" || return 1
	cat "$D/result"
	grep -q 'alg=held driver=acompd(lz4.* op=compress .* requests=512 errors=0 mismatches=0' "$D/result" &&
		grep -q 'alg=held driver=acompd(lz4.* op=decompress .* requests=512 errors=0 mismatches=0' "$D/result"
}

# EBUSY, or EAGAIN from delete_module (busybox rmmod does not wait).
RMMOD_BUSY='Resource temporarily unavailable|Device or resource busy'

check "acomp_pagebench loads and takes the corpus" \
	sh -c "insmod /acomp/modules/acomp_pagebench.ko && cat /acomp/corpus.bin >$D/corpus"
check "holding a transform of acompd(lz4) loads acompd if needed" \
	sh -c "echo 'acompd(lz4)' >$D/hold && grep -q '^acompd(' $D/hold && grep -q '^acompd ' /proc/modules"
REFCNT=/sys/module/acompd/refcnt

# rmmod_refused_held: acompd has a reference (the held transform's) and
# rmmod is refused as busy.
rmmod_refused_held() {
	[ "$(cat $REFCNT)" -ge 1 ] && fails_with "$RMMOD_BUSY" rmmod acompd
}

# release_held: freeing the held transform leaves acompd no reference.
release_held() {
	echo none >"$D/hold" && grep -qx none "$D/hold" && [ "$(cat $REFCNT)" = 0 ]
}

check "rmmod acompd is refused while a transform is allocated (busy)" rmmod_refused_held

check "acompd is still loaded and its instances still listed" \
	sh -c "grep -q '^acompd ' /proc/modules && grep -q '^driver *: acompd(lz4' /proc/crypto"
check "requests complete correctly while CPU 1 goes offline and online" hotplug_run
diag "$(grep cycles /tmp/tap-check.out)"
check "the held transform itself still works after the hotplug cycles (512 pages round-trip)" held_run
# The hold was what kept acompd: freeing it leaves no reference.
check "freeing the last transform is accepted and drops acompd's last reference" release_held
check "rmmod acompd succeeds once no transform is left" rmmod acompd
check "no acompd instance, workqueue or parameters are left" \
	sh -c "! grep -q 'acompd(' /proc/crypto && ! test -e /sys/devices/virtual/workqueue/acompd && ! test -e /sys/module/acompd"
check "a new request for acompd(lz4) loads the module again" \
	sh -c "echo 'acompd(lz4)' >$D/hold && grep -q '^acompd ' /proc/modules && echo none >$D/hold"
check "pagebench refuses to hold an unknown algorithm (ENOENT), holding nothing" \
	eval "write_refused $D/hold no-such-alg 'No such file or directory' && grep -qx none $D/hold"
check "acomp_pagebench unloads" rmmod acomp_pagebench
tap_done
