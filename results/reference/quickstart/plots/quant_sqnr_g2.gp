# fp4lab plot 'quant_sqnr_g2' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g2.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g2.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g2.' . fmt
if (fmt eq 'svg') {
  set terminal svg noenhanced size 960,600 dynamic background rgb 'white' font 'Sans,12'
} else {
  set terminal pngcairo noenhanced size 960,600 font 'Sans,10'
}
set output out
set encoding utf8
set grid lc rgb '#dddddd'
set key below center horizontal Left reverse noautotitle
set offsets 0, 0, graph 0.06, graph 0.06
$q0 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6220441 0 0 1
131072 55.628423 0 0 64
262144 55.6196536 0 0 128
393216 55.6402101 0 0 192
524288 55.621412 0 0 256
655360 55.6266179 0 0 320
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5973244 0 0 1
131072 55.6067805 0 0 64
262144 55.6189256 0 0 128
393216 55.6003335 0 0 192
524288 55.6073951 0 0 256
655360 55.6059878 0 0 320
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.9467527 0 0 1
131072 55.704283 0 0 64
262144 55.6742416 0 0 128
393216 55.6875111 0 0 192
524288 55.6839458 0 0 256
655360 55.681961 0 0 320
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5973244 0 0 1
131072 55.6067805 0 0 64
262144 55.6189256 0 0 128
393216 55.6003335 0 0 192
524288 55.6073951 0 0 256
655360 55.6059878 0 0 320
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.9467527 0 0 1
131072 55.704283 0 0 64
262144 55.6742416 0 0 128
393216 55.6875111 0 0 192
524288 55.6839458 0 0 256
655360 55.681961 0 0 320
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6220441 0 0 1
131072 55.628423 0 0 64
262144 55.6196536 0 0 128
393216 55.6402101 0 0 192
524288 55.621412 0 0 256
655360 55.6266179 0 0 320
EOD
set title "Quantization SQNR over training: recipe=bf16\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [bf16 rne]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [bf16 rne]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [bf16 rne]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [bf16 rne]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [bf16 rne]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [bf16 rne]'
unset output
