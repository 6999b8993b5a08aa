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
2048 20.5644864 0.119035427 0.0338061415 1
262144 20.8640225 0.160635913 0.0337905179 128
524288 20.9078764 0.158315282 0.034053037 256
786432 20.8324224 0.153851309 0.0336526939 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0624308 0.100382487 0.00240146968 1
262144 18.9670984 0.107228974 0.00239996262 128
524288 18.9105955 0.109460148 0.00241880063 256
786432 18.9056647 0.10765622 0.0023178289 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.3504836 0.162643044 0.0335121037 1
262144 17.4296674 0.212965612 0.0335713491 128
524288 17.4424432 0.214549654 0.0332411308 256
786432 17.4246748 0.209634663 0.0333244065 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0624308 0.100382487 0.00240146968 1
262144 18.9670984 0.107228974 0.00239996262 128
524288 18.9105955 0.109460148 0.00241880063 256
786432 18.9056647 0.10765622 0.0023178289 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1575335 0.0631120353 0.0347463702 1
262144 17.0370643 0.0587265816 0.0352698079 128
524288 16.9869294 0.0570138297 0.0354411632 256
786432 16.9738369 0.0560103048 0.0355674013 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.3853497 0.0661232438 0.0344700751 1
262144 20.3271914 0.0649137847 0.0347542467 128
524288 20.3149561 0.0635626639 0.0351570388 256
786432 20.2928304 0.0633208777 0.035100348 384
EOD
set title "Quantization SQNR over training: variant=mlp_only\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [fp4_e2m1/16 e4m3 1d rne bf16-in]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [fp4_e2m1/16 e4m3 2d rne bf16-in]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr bf16-in]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne bf16-in]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr rht16 bf16-in]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne rht16 bf16-in]'
unset output
