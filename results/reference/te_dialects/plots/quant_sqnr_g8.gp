# fp4lab plot 'quant_sqnr_g8' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g8.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g8.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g8.' . fmt
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
2048 21.1139983 0.100507534 0.0236223716 1
262144 21.2318565 0.116988661 0.0239840613 128
524288 21.1873413 0.118318325 0.0243129428 256
786432 21.1329402 0.116694072 0.0232048336 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0719187 0.100944829 0.00240889721 1
262144 18.9542551 0.107487108 0.0023839234 128
524288 18.9094398 0.109997623 0.00231782891 256
786432 18.9044136 0.109596965 0.00227929171 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.3130207 0.112369356 0.033996592 1
262144 17.3618024 0.147690082 0.0338614832 128
524288 17.3427491 0.151666823 0.0336446712 256
786432 17.3383076 0.149023308 0.0338398361 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0719187 0.100944829 0.00240889721 1
262144 18.9542551 0.107487108 0.0023839234 128
524288 18.9094398 0.109997623 0.00231782891 256
786432 18.9044136 0.109596965 0.00227929171 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1957982 0.0723560373 0.0353385079 1
262144 16.9883776 0.0573778002 0.0353295969 128
524288 16.9748295 0.0571010025 0.0354198074 256
786432 16.9880294 0.056630392 0.0355596594 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.776263 0.0860623262 0.03567189 1
262144 20.3862602 0.0672100808 0.0347425169 128
524288 20.3691034 0.0655013788 0.0348956094 256
786432 20.3603645 0.0655429877 0.0348116048 384
EOD
set title "Quantization SQNR over training: variant=4over6_mae_256\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [fp4_e2m1/16 e4m3 1d rne 4over6-mae q256 bf16-in]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [fp4_e2m1/16 e4m3 2d rne 4over6-mae q256 bf16-in]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr bf16-in]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne 4over6-mae q256 bf16-in]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr rht16 bf16-in]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne rht16 bf16-in]'
unset output
