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
2048 55.5898304 0 0 1
262144 55.5758406 0 0 128
524288 55.5795472 0 0 256
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.5836704 0.114092347 0.021456673 1
262144 18.435867 0.143439792 0.0235449776 128
524288 18.3880699 0.143912775 0.0217109105 256
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6753337 0 0 128
524288 55.6284784 0 0 256
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.8570491 0.0830976967 0.0191559968 1
262144 18.74006 0.0822382526 0.0262398425 128
524288 18.7372444 0.0825809969 0.0249154766 256
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1337516 0 0 1
262144 57.4555333 0 0 128
524288 57.335214 0 0 256
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.2770185 0.145575478 0.0235010834 1
262144 17.87321 0.237117777 0.0209279893 128
524288 17.8818263 0.235361231 0.0209134924 256
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6753337 0 0 128
524288 55.6284784 0 0 256
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.8573772 0.083133758 0.0191603027 1
262144 18.6954767 0.085164711 0.0251994461 128
524288 18.7013434 0.0845587727 0.0248546567 256
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1337516 0 0 1
262144 57.4555333 0 0 128
524288 57.335214 0 0 256
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.8180359 0.0819901965 0.0255633157 1
262144 18.9418815 0.0740261128 0.0276716323 128
524288 18.9354977 0.0730627605 0.0282295621 256
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5898304 0 0 1
262144 55.5758406 0 0 128
524288 55.5795472 0 0 256
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.7753552 0.0951173314 0.023708399 1
262144 18.7715054 0.0860414003 0.024163771 128
524288 18.7816305 0.0848643794 0.0244006001 256
EOD
set title "Quantization SQNR over training: budget=0.8, format=mxfp4\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [bf16 rne]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop x [fp4_e2m1/32 ue8m0-floor 1d rne]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'fprop w [bf16 rne]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'fprop w [fp4_e2m1/32 ue8m0-floor 1d rne]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'dgrad dy [bf16 rne]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'dgrad dy [fp4_e2m1/32 ue8m0-floor 1d rne]', \
     $q6 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#F0E442' title 'dgrad w [bf16 rne]', \
     $q7 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#882255' title 'dgrad w [fp4_e2m1/32 ue8m0-floor 1d rne]', \
     $q8 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#44AA99' title 'wgrad dy [bf16 rne]', \
     $q9 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#999933' title 'wgrad dy [fp4_e2m1/32 ue8m0-floor 1d rne rht32]', \
     $q10 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#0072B2' title 'wgrad x [bf16 rne]', \
     $q11 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#D55E00' title 'wgrad x [fp4_e2m1/32 ue8m0-floor 1d rne rht32]'
unset output
