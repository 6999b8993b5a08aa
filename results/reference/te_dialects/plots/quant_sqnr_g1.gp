# fp4lab plot 'quant_sqnr_g1' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g1.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g1.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g1.' . fmt
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
2048 55.5701027 0 0 1
262144 55.5744286 0 0 128
524288 55.5737317 0 0 256
786432 55.6107012 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.5019829 0.0911747874 0.0348896348 1
262144 20.5788344 0.107620966 0.0347716717 128
524288 20.5991279 0.108466951 0.034388537 256
786432 20.5651555 0.10619982 0.0343387647 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6724663 0 0 1
262144 55.6303914 0 0 128
524288 55.7680155 0 0 256
786432 55.4561628 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0650646 0.100980782 0.00231330777 1
262144 18.9524684 0.108422765 0.002332684 128
524288 18.9074288 0.109669088 0.00240911251 256
786432 18.8985304 0.109387702 0.00233612869 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1441294 0 0 1
262144 57.4928716 0 0 128
524288 57.4011027 0 0 256
786432 57.3692652 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.3153106 0.112285241 0.0341455872 1
262144 17.3754218 0.150583459 0.0339642276 128
524288 17.3408379 0.15210186 0.0339697783 256
786432 17.3403271 0.149253674 0.0339532076 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6724663 0 0 1
262144 55.6303914 0 0 128
524288 55.7680155 0 0 256
786432 55.4561628 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0650646 0.100980782 0.00231330777 1
262144 18.9524684 0.108422765 0.002332684 128
524288 18.9074288 0.109669088 0.00240911251 256
786432 18.8985304 0.109387702 0.00233612869 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1441294 0 0 1
262144 57.4928716 0 0 128
524288 57.4011027 0 0 256
786432 57.3692652 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1845751 0.0724576616 0.0352238954 1
262144 16.9982385 0.0570206213 0.0356719304 128
524288 16.980836 0.0567066356 0.0354678743 256
786432 16.95192 0.0561846475 0.0356086044 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5701027 0 0 1
262144 55.5744286 0 0 128
524288 55.5737317 0 0 256
786432 55.6107012 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7781927 0.0864566017 0.0358833232 1
262144 20.3843669 0.0672048135 0.0348571797 128
524288 20.3578336 0.0656993503 0.034679968 256
786432 20.3508398 0.065572032 0.0345010102 384
EOD
set title "Quantization SQNR over training: variant=nvfp4\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [bf16 rne]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop x [fp4_e2m1/16 e4m3 1d rne]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'fprop w [bf16 rne]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'fprop w [fp4_e2m1/16 e4m3 2d rne]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'dgrad dy [bf16 rne]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr]', \
     $q6 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#F0E442' title 'dgrad w [bf16 rne]', \
     $q7 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#882255' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne]', \
     $q8 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#44AA99' title 'wgrad dy [bf16 rne]', \
     $q9 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#999933' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr rht16]', \
     $q10 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#0072B2' title 'wgrad x [bf16 rne]', \
     $q11 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#D55E00' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne rht16]'
unset output
