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
1024 55.5852114 0 0 1
331776 55.5685711 0 0 324
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.5814041 0.114250728 0.0212234517 1
331776 18.3608026 0.149644074 0.0226385429 324
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6415933 0 0 1
331776 55.4720942 0 0 324
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.8570491 0.0830976967 0.0191559968 1
331776 18.7386035 0.0821001434 0.0245803752 324
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 63.166825 0 0 1
331776 57.4746908 0 0 324
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.2709252 0.145639813 0.0235300518 1
331776 17.827178 0.241785907 0.020944111 324
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6415933 0 0 1
331776 55.4720942 0 0 324
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.8573772 0.083133758 0.0191603027 1
331776 18.6784102 0.0847171201 0.0246428098 324
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 63.166825 0 0 1
331776 57.4746908 0 0 324
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.2385523 0.131840257 0.0297515809 1
331776 17.2362751 0.3136642 0.0183962161 324
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.5852114 0 0 1
331776 55.5685711 0 0 324
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.6083394 0.0905931058 0.0517451171 1
331776 18.4344596 0.121545691 0.034079375 324
EOD
set title "Quantization SQNR over training: budget=0.8, recipe=mxfp4\nmean over tensors and seeds, per GEMM operand"
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
     $q9 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#999933' title 'wgrad dy [fp4_e2m1/32 ue8m0-floor 1d rne]', \
     $q10 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#0072B2' title 'wgrad x [bf16 rne]', \
     $q11 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#D55E00' title 'wgrad x [fp4_e2m1/32 ue8m0-floor 1d rne]'
unset output
