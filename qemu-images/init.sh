#!/bin/sh
# /init of the guest. The job comes from the kernel command line as
# environment variables (the kernel hands unknown name=value pairs to init):
#   ACOMP_JOB=test   run /acomp/tests/runner.sh (ACOMP_TESTS: comma-separated names)
#   ACOMP_JOB=bench  run /acomp/bench/guest.sh (ACOMP_SCENARIO, ACOMP_ARGS)
#   ACOMP_JOB=soak   run /acomp/tests/soak-guest.sh (ACOMP_SOAK_SECONDS, ACOMP_SOAK_SEED)
# Results go to /out, which is written as a tar to the outbox disk /dev/vda.
# The guest always ends with reboot -f; QEMU runs with -no-reboot and exits.

export PATH=/bin:/sbin:/usr/bin:/usr/sbin:/acomp/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /tmp /run /out
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /out
mount -t debugfs debugfs /sys/kernel/debug
mount -t cgroup2 cgroup2 /sys/fs/cgroup

echo "ACOMP: init: job=${ACOMP_JOB:-none} kernel=$(uname -r) cpus=$(nproc) mem=$(awk '/MemTotal/ {print $2}' /proc/meminfo)kB"
{
	uname -a
	cat /proc/cmdline
	cat /proc/cpuinfo | grep -m1 'model name'
	echo "cpus $(nproc)"
} >/out/guest-info.txt
cp /proc/config.gz /out/ 2>/dev/null

status=0
case "${ACOMP_JOB:-}" in
test) sh /acomp/tests/runner.sh /out || status=$? ;;
bench) sh /acomp/bench/guest.sh /out || status=$? ;;
soak) sh /acomp/tests/soak-guest.sh /out || status=$? ;;
shell) setsid sh -c 'exec sh </dev/ttyS0 >/dev/ttyS0 2>&1' ;;
*) echo "ACOMP: init: unknown job '${ACOMP_JOB:-}'"; status=2 ;;
esac
echo "$status" >/out/job-status
echo "ACOMP: init: job finished with status $status, writing the outbox"

cd /out && tar -cf /dev/vda . && sync
echo "ACOMP: init: outbox written, powering off"
reboot -f
