# shellcheck shell=sh disable=SC2154 # out, snapshot, per_alg...: bench/guest.sh
# Scenario zram-fio (sourced by bench/guest.sh): zram0 (1G) with each
# algorithm, bench/fio/zram-write.fio one job at a time (ACOMP_FIO_JOBS=a,b:
# only those, in that order; ACOMP_FIO_LOOPS=N: each job N times), on the
# workload's CPUs. Per algorithm in OUT/runs/N/: fio-JOB.json and
# cpu.JOB.before/after (CPU time and context switches around each job; the
# counted phase runs/N/fio/JOB), and
# the snapshot before and after all jobs. Parser: bench/parse.py fio_run.

FIO_FILE=/acomp/bench/zram-write.fio
run_fio() {
	jobs=$(echo "${ACOMP_FIO_JOBS:-}" | tr ',' ' ')
	[ -n "$jobs" ] || jobs=$(sed -n -e '/^\[global\]$/d' -e 's/^\[\(.*\)\]$/\1/p' "$FIO_FILE")
	rc=0
	snapshot before
	for j in $jobs; do
		cpustat >"$out/cpu.$j.before"
		label=$(phase "fio/$j")
		phase_begin "$label"
		ACOMP_FIO_LOOPS=${ACOMP_FIO_LOOPS:-1} on fio --output-format=json \
			--output="$out/fio-$j.json" --section="$j" "$FIO_FILE" || rc=1
		phase_end "$label"
		cpustat >"$out/cpu.$j.after"
	done
	snapshot after
	return $rc
}

per_alg run_fio 1G
