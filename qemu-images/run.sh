#!/usr/bin/env bash
# Boot a kernel + initramfs in QEMU (KVM when it works, else TCG; ACCEL=tcg|kvm
# forces one), always to power-off, and collect.
# Usage: run.sh -k BZIMAGE -i INITRD -o OUTDIR [-t TIMEOUT_S] [-m MEM_MB]
#               [-c CPUS] [-a 'EXTRA APPEND'] [-d DISK.img ...] [-P PLUGIN.so] [-q]
# OUTDIR gets: console.log, qemu-cmdline, accel (the accelerator and why), the
# guest's results (outbox/), status; with -P (the instruction-counting TCG
# plugin, bench/plugin/insncount.c) under TCG, insn-sites.txt, its counts,
# and ACOMP_INSN=1 on the guest's command line (guest/stat.sh phase_begin).
# insn says whether the boot was counted.
# Exit status: 0 clean run; 1 kernel splat on the console; 2 timeout (guest
# hung); 3 the guest wrote no results; 4 QEMU failed. The reason is printed on
# one line ("run: FAIL <reason>") and written to OUTDIR/status.
set -euo pipefail
# shellcheck source=qemu-images/lib.sh
. "$(dirname "$0")/lib.sh"
STAGE=run

kernel='' initrd='' outdir='' timeout=1200 mem=1024 cpus=2 append='' quiet=0
plugin=''
disks=()
while getopts 'k:i:o:t:m:c:a:d:P:q' opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	i) initrd=$OPTARG ;;
	o) outdir=$OPTARG ;;
	t) timeout=$OPTARG ;;
	m) mem=$OPTARG ;;
	c) cpus=$OPTARG ;;
	a) append=$OPTARG ;;
	d) disks+=("$OPTARG") ;;
	P) plugin=$OPTARG ;;
	q) quiet=1 ;;
	*) exit 2 ;;
	esac
done
[ -f "$kernel" ] && [ -f "$initrd" ] && [ -n "$outdir" ] ||
	die "usage: run.sh -k BZIMAGE -i INITRD -o OUTDIR [-t S] [-m MB] [-c N] [-a APPEND] [-d DISK]"
need_pkgs qemu-system-x86

mkdir -p "$outdir"
rm -rf "$outdir/outbox" "$outdir/status" "$outdir/insn-sites.txt" "$outdir/insn-sites.txt.gz" "$outdir/insn"
outbox=$outdir/outbox.img
rm -f "$outbox"
truncate -s 256M "$outbox"

# KVM when it works (or ACCEL=kvm), else TCG; recorded beside the command.
if ! sel=$(pick_accel "$kernel"); then
	echo "no accelerator: ACCEL=${ACCEL:-} cannot be used (the reason is printed above)" >"$outdir/status"
	echo "run: FAIL no accelerator" >&2
	exit 4
fi
accel=${sel%% *} accel_why=${sel#* }
cpu_model=max
[ "$accel" = kvm ] && cpu_model=host
echo "$accel $accel_why" >"$outdir/accel"
[ "$quiet" = 1 ] || say "accelerator: $accel $accel_why"

# Instruction counts: a TCG plugin, so never under KVM.
plugin_args=
if [ -n "$plugin" ]; then
	[ -f "$plugin" ] || die "no plugin $plugin (make builds it: build/plugin/insncount.so)"
	if [ "$accel" = tcg ]; then
		plugin_args="$plugin,out=$outdir/insn-sites.txt"
		append="$append ACOMP_INSN=1"
		echo "on $(basename "$plugin")" >"$outdir/insn"
	else
		echo "off: $accel runs no TCG plugin" >"$outdir/insn"
	fi
fi

cmd=(qemu-system-x86_64 -accel "$accel" -cpu "$cpu_model" -smp "$cpus" -m "$mem"
	-display none -monitor none -serial stdio -no-reboot
	-kernel "$kernel" -initrd "$initrd"
	-append "console=ttyS0 tsc=reliable panic=-1 oops=panic loglevel=7 watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=120 acpi=noirq $append"
	-drive "file=$outbox,format=raw,if=virtio,cache=unsafe")
for d in "${disks[@]}"; do
	cmd+=(-drive "file=$d,format=raw,if=virtio,cache=unsafe")
done
if [ -n "$plugin_args" ]; then
	cmd+=(-plugin "$plugin_args")
fi
printf '%q ' "${cmd[@]}" >"$outdir/qemu-cmdline"
echo >>"$outdir/qemu-cmdline"
qemu-system-x86_64 --version | head -1 >"$outdir/qemu-version"

fail() {
	echo "$1" >"$outdir/status"
	echo "run: FAIL $1" >&2
	exit "$2"
}

# Progress: the guest's own ACOMP: lines and anything that looks like trouble.
show="^ACOMP|^(not )?ok |$(splat_pattern)"
[ "$quiet" = 1 ] && show='^ACOMP: (init|progress)|BUG:|WARNING:|Oops|Kernel panic'
start=$(date +%s)
set +e
timeout -k 10 "$timeout" "${cmd[@]}" </dev/null 2>"$outdir/qemu-stderr" |
	stdbuf -oL tr -d '\r' | tee "$outdir/console.log" |
	grep --line-buffered -E "$show" | sed -u 's/^/  guest| /' >&2
rcs=("${PIPESTATUS[@]}")
set -e
qrc=${rcs[0]}
echo "elapsed_s $(($(date +%s) - start))" >"$outdir/run-time"

# Kernel splats, whatever the workload said (qemu-images/splats).
splat=$(splat_pattern)
if first=$(grep -m1 -E "$splat" "$outdir/console.log"); then
	fail "kernel splat on the console: $(echo "$first" | sed 's/^\[ *[0-9.]*\] //' | cut -c1-160)" 1
fi
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	fail "timeout: the guest did not power off within ${timeout}s (hung?); last console line: $(grep -v '^\s*$' "$outdir/console.log" | tail -1 | cut -c1-120)" 2
fi
if [ "$qrc" != 0 ]; then
	fail "qemu exited with status $qrc: $(tail -1 "$outdir/qemu-stderr")" 4
fi
mkdir -p "$outdir/outbox"
if ! tar -xf "$outbox" -C "$outdir/outbox" 2>/dev/null || [ ! -f "$outdir/outbox/job-status" ]; then
	fail "the guest wrote no results to its outbox (crashed before the end of its job?)" 3
fi
rm -f "$outbox"
echo ok >"$outdir/status"
exit 0
