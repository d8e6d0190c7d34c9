set terminal pngcairo size 1000,560 font ",10"
set output "results/2026-12-03-default/latency-zram-fio-mixed-70r30w-4k.png"
set datafile missing "?"
set title "zram-fio: mixed-70r30w-4k latency percentiles (medians)"
set offsets 0.2,0.2
set xlabel "percentile"
set ylabel "us"
set logscale y
set key outside right top
set grid
plot 'results/2026-12-03-default/plots/latency-zram-fio-mixed-70r30w-4k.dat' using 1:3:xtic(2) with linespoints title "lz4 base", 'results/2026-12-03-default/plots/latency-zram-fio-mixed-70r30w-4k.dat' using 1:4:xtic(2) with linespoints title "lz4 patched", 'results/2026-12-03-default/plots/latency-zram-fio-mixed-70r30w-4k.dat' using 1:5:xtic(2) with linespoints title "acompd(lz4) patched"
