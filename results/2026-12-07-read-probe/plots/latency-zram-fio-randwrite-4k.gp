set terminal pngcairo size 1000,560 font ",10"
set output "/work/main/results/2026-12-07-read-probe/latency-zram-fio-randwrite-4k.png"
set datafile missing "?"
set title "zram-fio: randwrite-4k latency percentiles (medians)"
set offsets 0.2,0.2
set xlabel "percentile"
set ylabel "us"
set logscale y
set key outside right top
set grid
plot '/work/main/results/2026-12-07-read-probe/plots/latency-zram-fio-randwrite-4k.dat' using 1:3:xtic(2) with linespoints title "lz4 patched", '/work/main/results/2026-12-07-read-probe/plots/latency-zram-fio-randwrite-4k.dat' using 1:4:xtic(2) with linespoints title "acompd(lz4) patched"
