# fp4lab plot 'quant_sqnr_g0' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g0.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g0.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g0.' . fmt
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
2048 20.4958332 0.0902439952 0.0339582586 1
262144 20.5784435 0.109165292 0.0343542605 128
524288 20.5848551 0.108997576 0.0332612839 256
786432 20.5702139 0.107609431 0.0338740574 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0671601 0.100882825 0.00237606526 1
262144 18.9357071 0.109066595 0.00236594657 128
524288 18.9041621 0.110139285 0.00241363364 256
786432 18.8951781 0.109105025 0.00232557939 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.3116632 0.11260952 0.0339653126 1
262144 17.3465707 0.149693479 0.0337740077 128
524288 17.3720554 0.151712009 0.0337025728 256
786432 17.3669808 0.148697581 0.0336104549 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0671601 0.100882825 0.00237606526 1
262144 18.9357071 0.109066595 0.00236594657 128
524288 18.9041621 0.110139285 0.00241363364 256
786432 18.8951781 0.109105025 0.00232557939 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.2577851 0.0992265327 0.0356168042 1
262144 17.4804064 0.203727152 0.0332219461 128
524288 17.5042846 0.227435177 0.0331247319 256
786432 17.4965668 0.236690905 0.0329632128 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7053793 0.0738838895 0.0443169781 1
262144 20.5733411 0.0887442191 0.0389961314 128
524288 20.5840245 0.0949125845 0.0369332028 256
786432 20.5706796 0.0958891717 0.0371452412 384
EOD
set title "Quantization SQNR over training: variant=te_nvfp4_no_rht\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [fp4_e2m1/16 e4m3 1d rne bf16-in]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [fp4_e2m1/16 e4m3 2d rne bf16-in]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr bf16-in]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne bf16-in]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr bf16-in]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne bf16-in]'
unset output
