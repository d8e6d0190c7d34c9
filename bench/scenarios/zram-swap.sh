# shellcheck shell=sh disable=SC2154 # out, snapshot, per_alg...: bench/guest.sh
# Scenario zram-swap (sourced by bench/guest.sh): zram0 (ACOMP_ZRAM_SIZE,
# default 512M) with each algorithm as the swap of memstress (memstress_args)
# under ACOMP_MEMMAX (swap_load). Per algorithm in OUT/runs/N/: memstress.txt
# (its result line), memory.max, memcg-events, memcg-stat,
# zram-mm_stat.loaded and the snapshot before and after memstress. Parser:
# bench/parse.py swap_run.

zram_swap() {
	# shellcheck disable=SC2046 # memstress's arguments
	swap_load /dev/zram0 memstress $(memstress_args)
}

per_alg zram_swap "${ACOMP_ZRAM_SIZE:-512M}"
