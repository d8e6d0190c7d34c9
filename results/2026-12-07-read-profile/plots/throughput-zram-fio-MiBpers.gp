set terminal pngcairo size 1000,560 font ",10"
set output "/work/main/results/2026-12-07-read-profile/throughput-zram-fio-MiBpers.png"
set datafile missing "?"
set title "zram-fio: throughput (median, whiskers min-max)"
set ylabel "MiB/s"
set yrange [0:*]
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.7 border -1
set key outside right top
set xtics rotate by -20
set grid ytics
plot '/work/main/results/2026-12-07-read-profile/plots/throughput-zram-fio-MiBpers.dat' using 2:3:4:xtic(1) title "lz4 patched", '/work/main/results/2026-12-07-read-profile/plots/throughput-zram-fio-MiBpers.dat' using 5:6:7:xtic(1) title "acompd(lz4) patched"
