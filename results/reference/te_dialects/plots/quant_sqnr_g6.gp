# fp4lab plot 'quant_sqnr_g6' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g6.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g6.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g6.' . fmt
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
2048 21.0783985 0.0999708534 0.0239031553 1
262144 21.1916637 0.117565377 0.0241437841 128
524288 21.1696704 0.118413845 0.0247619871 256
786432 21.1536394 0.115816681 0.0239346116 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0790593 0.101573049 0.00227326356 1
262144 18.9422219 0.110054245 0.00235528964 128
524288 18.9218091 0.110136702 0.00234710856 256
786432 18.9042341 0.109464131 0.00235873429 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.3036308 0.112186553 0.0338441656 1
262144 17.3154784 0.151153182 0.0336270809 128
524288 17.3417966 0.150655514 0.0337581232 256
786432 17.343494 0.14739851 0.0336930311 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0790593 0.101573049 0.00227326356 1
262144 18.9422219 0.110054245 0.00235528964 128
524288 18.9218091 0.110136702 0.00234710856 256
786432 18.9042341 0.109464131 0.00235873429 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1908396 0.0724663101 0.0352679461 1
262144 16.9965568 0.0571749349 0.0356982802 128
524288 16.9805377 0.0566394242 0.0355228847 256
786432 16.9518628 0.0560451993 0.0356277788 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7756136 0.0859922583 0.0358670451 1
262144 20.3844906 0.0666338707 0.0347247247 128
524288 20.3591137 0.0654783096 0.0347578364 256
786432 20.3541371 0.0652372978 0.0346455751 384
EOD
set title "Quantization SQNR over training: variant=4over6_mae_448\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [fp4_e2m1/16 e4m3 1d rne 4over6-mae bf16-in]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [fp4_e2m1/16 e4m3 2d rne 4over6-mae bf16-in]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr bf16-in]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne 4over6-mae bf16-in]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr rht16 bf16-in]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne rht16 bf16-in]'
unset output
