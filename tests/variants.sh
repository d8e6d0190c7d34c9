#!/usr/bin/env bash
# Kernel variants (qemu-images/variants, read through qemu-images/lib.sh), as
# TAP: the committed file is valid and names make test's and make bench's
# kernels; malformed files are refused with the line at fault; an unknown
# variant is refused naming the known ones, by kernel.sh and by bench.sh
# before anything boots; sources and fragments resolve as documented; a
# run's identity (bench/runinfo.py) carries what the report needs.
# Usage: tests/variants.sh
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)

# shellcheck source=tests/host-tap.sh
. "$TOP/tests/host-tap.sh"
TAP_PREFIX=variants
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# lib CMD...: CMD in a subshell with qemu-images/lib.sh sourced (VARIANTS as
# exported by the caller); its output, stderr included, and status.
lib() {
	(
		# shellcheck source=qemu-images/lib.sh
		. "$TOP/qemu-images/lib.sh"
		STAGE=variants
		"$@"
	) 2>&1
}

out=$(lib check_variants) &&
	[ "$(lib variants_with control)" = base ] && [ "$(lib variants_with test)" = debug ] &&
	[ "$(lib variants_with candidate)" = patched ] && [ "$(lib variant v1)" = "variant patches:35a4bd4 common,patched" ]
result $? "the committed variants file is valid: control base, candidate patched, test debug, the v1 example" "$out"

tv=$(make -s -C "$TOP" -n test 2>/dev/null | grep -o 'tests/run.sh [^ ]*')
[ "$tv" = "tests/run.sh build/kernels/debug/arch/x86/boot/bzImage" ]
result $? "make test boots the variant with role test" "got: $tv"

bad() { # FILE-CONTENT WANT DESCRIPTION
	printf '%s\n' "$1" >"$tmp/variants"
	out=$(VARIANTS=$tmp/variants lib check_variants)
	rc=$?
	[ $rc != 0 ] && [[ $out == *"$2"* ]]
	result $? "$3" "status $rc: $out"
}
ok_lines='base control pristine common,base
t test series common'
bad "$ok_lines
base candidate series common" "variant 'base' listed twice" "a name listed twice is refused"
bad "$ok_lines
b2 control series common" "2 variants with role control" "two controls are refused"
bad "t test series common" "0 variants with role control" "no control is refused"
bad "$ok_lines
x boss series common" "role 'boss'" "an unknown role is refused"
bad "$ok_lines
x variant git:abc common" "source 'git:abc'" "an unknown source is refused"
bad "$ok_lines
x-y variant series common" "letters, digits" "a name with '-' is refused"
bad "$ok_lines
x variant series" "want NAME ROLE SOURCE FRAGMENTS" "a line without fragments is refused"

printf '%s\n' "$ok_lines" 'mine variant path:../elsewhere/linux common,patched,/abs/x.config,frag/y.config' \
	'old variant ref:series-v1 common' 'rev variant patches:no-such-revision common' >"$tmp/variants"
export VARIANTS=$tmp/variants
[ "$(lib variant_tree mine)" = "$TOP/../elsewhere/linux" ] &&
	[ "$(lib variant_tree old)" = "$TOP/build/trees/old" ] &&
	[ "$(lib variant_tree rev)" = "$TOP/build/trees/rev" ] &&
	[ "$(lib variant_tree base)" = "$TOP/build/linux-base" ] &&
	[ "$(lib variant_tree t)" = "$TOP/build/linux" ]
result $? "sources resolve: path: (relative to the top), ref: and patches: (worktrees), pristine, series" \
	"$(lib variant_tree mine) $(lib variant_tree old)"
[ "$(lib variant_fragments mine | paste -sd' ')" = \
	"$TOP/qemu-images/common.config $TOP/qemu-images/patched.config /abs/x.config $TOP/frag/y.config" ]
result $? "fragments resolve: names, absolute and relative paths, in order" \
	"$(lib variant_fragments mine | paste -sd' ')"

out=$(lib variant nope)
[ $? != 0 ] && [[ $out == *"unknown kernel variant 'nope'"*"base t mine old rev"* ]]
result $? "an unknown variant is refused naming the known ones" "$out"

out=$("$TOP/qemu-images/kernel.sh" nope 2>&1)
[ $? != 0 ] && [[ $out == *"unknown kernel variant 'nope'"* ]]
result $? "kernel.sh refuses an unknown variant" "$out"

out=$("$TOP/qemu-images/kernel.sh" old 2>&1)
[ $? != 0 ] && [[ $out == *"ref 'series-v1' of variant old is not a commit"* ]]
result $? "kernel.sh refuses a ref: variant whose ref does not exist, naming it" "$out"

out=$("$TOP/qemu-images/kernel.sh" rev 2>&1)
[ $? != 0 ] && [[ $out == *"revision 'no-such-revision' of variant rev has no patches/"* ]]
result $? "kernel.sh refuses a patches: variant whose revision does not exist, naming it" "$out"

before=$(find "$TOP/results" -maxdepth 1 | wc -l)
out=$(KERNELS="base nope" "$TOP/bench/bench.sh" 2>&1)
rc=$?
[ $rc != 0 ] && [[ $out == *"unknown kernel variant 'nope'"* ]] &&
	[ "$(find "$TOP/results" -maxdepth 1 | wc -l)" = "$before" ]
result $? "make bench KERNELS= with an unknown variant stops before it boots or writes a run" "status $rc: $out"
out=$(KERNELS="base base" "$TOP/bench/bench.sh" 2>&1)
[ $? != 0 ] && [[ $out == *"base named twice"* ]]
result $? "make bench KERNELS= naming a kernel twice is refused" "$out"
printf '%s\n' "$ok_lines" 'ghost variant series common' >"$tmp/variants"
out=$(KERNELS="ghost" "$TOP/bench/bench.sh" 2>&1)
[ $? != 0 ] && [[ $out == *"kernel ghost is not built"* ]]
result $? "make bench KERNELS= with a variant that is not built says so before it boots" "$out"
unset VARIANTS

# run.json: written from bench.sh's fields and run.sh's files, read back.
mkdir -p "$tmp/boot"
echo 'qemu-system-x86_64 -accel tcg -cpu max -smp 3 -m 384M' >"$tmp/boot/qemu-cmdline"
echo 'tcg (/dev/kvm does not open read-write)' >"$tmp/boot/accel"
python3 "$TOP/bench/runinfo.py" write "$tmp/boot" scenario=s1 consumer=zswap-swap kernel=mine \
	kernel_role=variant rep=2 'modes=lz4,acompd(lz4)' vcpus=3 mem=384M >/dev/null &&
	python3 - "$tmp/boot/run.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
want = {"scenario": "s1", "consumer": "zswap-swap", "kernel": "mine", "kernel_role": "variant",
        "rep": 2, "modes": ["lz4", "acompd(lz4)"], "vcpus": 3, "mem": "384M", "accelerator": "tcg",
        "qemu_cmdline": "qemu-system-x86_64 -accel tcg -cpu max -smp 3 -m 384M"}
bad = {k: (r.get(k), v) for k, v in want.items() if r.get(k) != v}
bad.update({k: "missing" for k in ("host", "accelerator_why", "schema") if k not in r})
sys.exit(print(bad) or 1) if bad else sys.exit(0)
EOF
result $? "run.json holds the boot's identity, QEMU command line, accelerator and host"
out=$(python3 "$TOP/bench/runinfo.py" write "$tmp/boot" 'not a field' 2>&1)
[ $? != 0 ] && [[ $out == *"want KEY=VALUE"* ]]
result $? "runinfo.py write refuses a malformed field" "$out"
tap_plan
