# fp4lab plot 'quant_sqnr_g10' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g10.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g10.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g10.' . fmt
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
2048 55.5757065 0 0 1
262144 55.5627263 0 0 128
524288 55.5803591 0 0 256
786432 55.5969238 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 31.5350617 3.59166868e-05 5.14681392e-07 1
262144 31.5453564 0.00021521755 2.72478383e-07 128
524288 31.5463517 0.000233110297 2.90643601e-06 256
786432 31.5531764 0.000209334036 7.87462505e-05 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6724663 0 0 1
262144 55.6726303 0 0 128
524288 55.5925153 0 0 256
786432 55.7033831 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 31.5657013 3.65995653e-06 1.16257442e-05 1
262144 31.5373582 1.01187033e-05 4.09053962e-06 128
524288 31.5396163 7.10462146e-06 3.65995653e-06 256
786432 31.5096396 8.61166244e-06 1.4639826e-05 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1665382 0 0 1
262144 57.3927193 0 0 128
524288 57.3597361 0 0 256
786432 57.238341 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 25.563967 3.02753751e-08 2.42203008e-07 1
262144 25.5747747 2.04560615e-05 4.94497806e-07 128
524288 25.5812144 4.31020421e-05 4.94497806e-07 256
786432 25.5786331 4.51506759e-05 2.42203008e-07 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6724663 0 0 1
262144 55.6726303 0 0 128
524288 55.5925153 0 0 256
786432 55.7033831 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 31.5657013 3.65995653e-06 1.16257442e-05 1
262144 31.5373582 1.01187033e-05 4.09053962e-06 128
524288 31.5396163 7.10462146e-06 3.65995653e-06 256
786432 31.5096396 8.61166244e-06 1.4639826e-05 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1665382 0 0 1
262144 57.3927193 0 0 128
524288 57.3597361 0 0 256
786432 57.238341 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 25.563967 3.02753751e-08 2.42203008e-07 1
262144 25.5747747 2.04560615e-05 4.94497806e-07 128
524288 25.5812144 4.31020421e-05 4.94497806e-07 256
786432 25.5786331 4.51506759e-05 2.42203008e-07 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5757065 0 0 1
262144 55.5627263 0 0 128
524288 55.5803591 0 0 256
786432 55.5969238 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 31.5350617 3.59166868e-05 5.14681392e-07 1
262144 31.5453564 0.00021521755 2.72478383e-07 128
524288 31.5463517 0.000233110297 2.90643601e-06 256
786432 31.5531764 0.000209334036 7.87462505e-05 384
EOD
set title "Quantization SQNR over training: variant=fp8\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [bf16 rne]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop x [fp8_e4m3/tensor fp32 1d rne]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'fprop w [bf16 rne]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'fprop w [fp8_e4m3/tensor fp32 1d rne]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'dgrad dy [bf16 rne]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'dgrad dy [fp8_e5m2/tensor fp32 1d rne]', \
     $q6 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#F0E442' title 'dgrad w [bf16 rne]', \
     $q7 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#882255' title 'dgrad w [fp8_e4m3/tensor fp32 1d rne]', \
     $q8 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#44AA99' title 'wgrad dy [bf16 rne]', \
     $q9 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#999933' title 'wgrad dy [fp8_e5m2/tensor fp32 1d rne]', \
     $q10 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#0072B2' title 'wgrad x [bf16 rne]', \
     $q11 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#D55E00' title 'wgrad x [fp8_e4m3/tensor fp32 1d rne]'
unset output
