set terminal pngcairo size 1000,560 font ",10"
set output "/work/main/results/2026-12-06-iof-on-2/latency-zram-swap-1p-faults.png"
set datafile missing "?"
set title "zram-swap-1p: faults latency percentiles (medians)"
set offsets 0.2,0.2
set xlabel "percentile"
set ylabel "us"
set logscale y
set key outside right top
set grid
plot '/work/main/results/2026-12-06-iof-on-2/plots/latency-zram-swap-1p-faults.dat' using 1:3:xtic(2) with linespoints title "lz4 base"
