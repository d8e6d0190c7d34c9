# shellcheck shell=sh disable=SC2154 # out, snapshot, per_alg...: bench/guest.sh
# Scenario zswap-swap (sourced by bench/guest.sh): zswap with each algorithm
# in front of the swap disk /dev/vdb (the matrix row's DISK), memstress as
# in zram-swap. zswap's zpool and max_pool_percent for the whole boot:
# ACOMP_ZSWAP_ZPOOL, ACOMP_ZSWAP_MAX_POOL (default: the kernel's). Per
# algorithm in OUT/runs/N/: as zram-swap, with zswap's parameters
# (zswap-params) and its debugfs statistics before, after and at its
# fullest (zswap.loaded). Parser: bench/parse.py swap_run.

# zswap_for ALG: zswap off, with ALG (zswap_swap turns it on); fails if the
# kernel lacks ALG.
zswap_for() {
	echo N >"$ZSWAP/enabled"
	echo "$1" >"$ZSWAP/compressor" 2>/dev/null
}

zswap_swap() {
	echo Y >"$ZSWAP/enabled" || return 1
	grep -H . "$ZSWAP"/* >"$out/zswap-params" 2>/dev/null
	# shellcheck disable=SC2046 # memstress's arguments
	swap_load "$SWAPDEV" memstress $(memstress_args)
	rc=$?
	echo N >"$ZSWAP/enabled"
	return $rc
}

if [ -n "${ACOMP_ZSWAP_ZPOOL:-}" ]; then
	echo "$ACOMP_ZSWAP_ZPOOL" >"$ZSWAP/zpool" || { echo "ACOMP: bench: zswap zpool setup failed"; exit 1; }
fi
if [ -n "${ACOMP_ZSWAP_MAX_POOL:-}" ]; then
	echo "$ACOMP_ZSWAP_MAX_POOL" >"$ZSWAP/max_pool_percent" || { echo "ACOMP: bench: zswap max_pool_percent setup failed"; exit 1; }
fi
per_alg zswap_swap 0 zswap_for
