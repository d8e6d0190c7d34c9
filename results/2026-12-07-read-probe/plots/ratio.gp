set terminal pngcairo size 1000,560 font ",10"
set output "/work/main/results/2026-12-07-read-probe/ratio.png"
set datafile missing "?"
set title "compression ratio per algorithm (patched kernel, medians)"
set ylabel "original / stored"
set yrange [0:*]
set style data histogram
set style histogram clustered gap 2
set style fill solid 0.7 border -1
set key outside right top
set grid ytics
plot '/work/main/results/2026-12-07-read-probe/plots/ratio.dat' using 2:xtic(1) title "lz4", '/work/main/results/2026-12-07-read-probe/plots/ratio.dat' using 3:xtic(1) title "acompd(lz4)"
