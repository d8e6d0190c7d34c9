#!/usr/bin/env bash
# Benchmark scenarios as data (bench/matrix, bench/scenarios/, bench/parse.py),
# as TAP: every matrix row has its guest script, packed in the initramfs, a
# parser and that parser's fixture; bench.sh refuses a row it cannot run
# before anything boots; the guest helpers (guest/) are defined once; a
# scenario's parser fails a record whose workload found damage.
# Usage: tests/scenarios.sh
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)

# shellcheck source=tests/host-tap.sh
. "$TOP/tests/host-tap.sh"
TAP_PREFIX=scenarios
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rows() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/bench/matrix"; }
parsers=$(cd "$TOP/bench" && python3 -c 'import parse; print(" ".join(sorted(parse.SCENARIOS)))')
packed=$("$TOP/qemu-images/initramfs.sh" --list)
fx=$TOP/tests/fixtures/bench/scenarios
missing=
for g in $(rows | awk '{ print $2 }' | sort -u); do
	[ -f "$TOP/bench/scenarios/$g.sh" ] || missing+=" $g: no bench/scenarios/$g.sh;"
	grep -qx "bench/scenarios/$g.sh" <<<"$packed" || missing+=" $g: not in the initramfs;"
	[[ " $parsers " == *" $g "* ]] || missing+=" $g: no parser in bench/parse.py SCENARIOS;"
	[ -d "$fx/$g" ] && [ -s "$fx/$g.expected" ] || missing+=" $g: no fixture in $fx;"
done
[ -z "$missing" ] && [ -n "$parsers" ]
result $? "every matrix row's guest scenario has its script, in the initramfs, a parser and its fixture" "$missing"

bad=$(rows | awk '$4 !~ /^[1-9][0-9]*$/ || $5 !~ /^[0-9]+[MG]?$/ || ($6 != "-" && $6 !~ /^[0-9]+[MG]$/) { print $1 }')
[ -z "$bad" ] && [ "$(rows | awk '{ print $1 }' | sort | uniq -d)" = "" ]
result $? "every matrix row has vCPUs, memory and disk columns and a name of its own" "bad rows: $bad"

# bench.sh with a matrix of its own: refused before a run directory exists.
refused() { # MATRIX-ROW WANT DESCRIPTION
	printf '%s\n' "$1" >"$tmp/matrix"
	before=$(find "$TOP/results" -maxdepth 1 | wc -l)
	out=$(BENCH_MATRIX=$tmp/matrix KERNELS=base SCENARIOS=x "$TOP/bench/bench.sh" 2>&1)
	rc=$?
	[ $rc != 0 ] && [[ $out == *"$2"* ]] && [ "$(find "$TOP/results" -maxdepth 1 | wc -l)" = "$before" ]
	result $? "$3" "status $rc: $out"
}
refused 'x nowhere zram-swap 2 1024M - lz4 lz4' "scenario nowhere: no guest script bench/scenarios/nowhere.sh" \
	"make bench refuses a row whose guest script does not exist, naming it, before it boots"
refused 'x zram-swap zram-swap 2 lots - lz4 lz4' "scenario zram-swap: MEM 'lots'" \
	"make bench refuses a row whose memory is not a size"
refused 'x zswap-swap zswap-swap 2 1024M big lz4 lz4' "scenario zswap-swap: DISK 'big'" \
	"make bench refuses a row whose disk is neither - nor a size"
# What each row's boots get is the row: its guest script, consumer, shape,
# modes and every one of its parameters (BENCH_DRY=1 plans, boots nothing).
wrong=
while read -r name gscen consumer vcpus mem disk modes full args; do
	plan=$(BENCH_DRY=1 KERNELS=base SCENARIOS=$name "$TOP/bench/bench.sh" 2>&1)
	want="plan: $name guest=$gscen consumer=$consumer vcpus=$vcpus mem=$mem disk=$disk modes=$modes args=$args"
	[ "$plan" = "$want" ] || wrong+=" [$plan] want [$want];"
	: "$full"
done < <(rows | awk '{ printf "%s", $1; for (i = 2; i <= NF; i++) printf " %s", $i; print "" }')
[ -z "$wrong" ] && [ "$(rows | wc -l)" -gt 5 ]
result $? "every matrix row reaches its boots whole: guest, consumer, shape, modes and all its parameters" "$wrong"
out=$(SCENARIOS=no-such-scenario KERNELS=base "$TOP/bench/bench.sh" 2>&1)
[ $? != 0 ] && [[ $out == *"unknown scenario 'no-such-scenario'; bench/matrix has: zram-fio"* ]]
result $? "make bench refuses an unknown scenario, naming the matrix's" "$out"

# Each helper of guest/ is defined there only: no test or scenario script
# defines a function of the same name.
dups=
for f in $(sed -n 's/^\([a-z_0-9]*\)() *{.*/\1/p' "$TOP"/guest/*.sh); do
	again=$(grep -l "^$f() *{" "$TOP"/tests/*.sh "$TOP"/tests/guest/*.sh "$TOP"/bench/*.sh "$TOP"/bench/scenarios/*.sh 2>/dev/null)
	[ -z "$again" ] || dups+=" $f ($again)"
	[ "$(grep -l "^$f() *{" "$TOP"/guest/*.sh | wc -l)" = 1 ] || dups+=" $f (twice in guest/)"
done
[ -z "$dups" ] && [ -n "$(sed -n 's/^\([a-z_0-9]*\)() *{.*/\1/p' "$TOP"/guest/*.sh)" ]
result $? "the guest helpers for zram, zswap, cgroups and counters are defined once, in guest/" "defined again:$dups"

# A scenario's parser fails the record when its workload found damage.
cp -r "$fx/zram-shmem" "$tmp/shmem"
sed -i 's/mismatches=0/mismatches=3/' "$tmp/shmem/shmem.txt"
got=$(cd "$TOP/bench" && python3 -c '
import sys, parse
rec = {"consumer": "zram-swap", "status": "ok", "metrics": {}}
parse.SCENARIOS["zram-shmem"][1](sys.argv[1], rec)
print(rec["status"], "shmem.write_mib_s" in rec["metrics"])' "$tmp/shmem" 2>&1)
[ "$got" = "shmem: 3 mismatches True" ]
result $? "the zram-shmem parser fails a run whose read-back found mismatches" "got: $got"
rm "$tmp/shmem/shmem.txt"
got=$(cd "$TOP/bench" && python3 -c '
import sys, parse
rec = {"consumer": "zram-swap", "status": "ok", "metrics": {}}
parse.SCENARIOS["zram-shmem"][1](sys.argv[1], rec)
print(rec["status"])' "$tmp/shmem" 2>&1)
[ "$got" = "shmem: no result line" ]
result $? "the zram-shmem parser fails a run without its result line" "got: $got"

tap_plan
