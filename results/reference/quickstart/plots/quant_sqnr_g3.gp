# fp4lab plot 'quant_sqnr_g3' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g3.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g3.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g3.' . fmt
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
331776 55.553517 0 0 324
663552 55.5593281 0 0 648
995328 55.5665874 0 0 972
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.5814041 0.114250728 0.0212234517 1
331776 18.2990528 0.15538144 0.0221617966 324
663552 18.2680267 0.15693271 0.0196106423 648
995328 18.252408 0.156267549 0.0191824373 972
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6415933 0 0 1
331776 55.5127532 0 0 324
663552 55.4339511 0 0 648
995328 55.3565445 0 0 972
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.8570491 0.0830976967 0.0191559968 1
331776 18.73709 0.08279392 0.0244959809 324
663552 18.6816302 0.0834504517 0.0260692241 648
995328 18.6627882 0.0838644578 0.0251496061 972
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 63.166825 0 0 1
331776 57.4858379 0 0 324
663552 57.2631868 0 0 648
995328 57.2668705 0 0 972
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.2709252 0.145639813 0.0235300518 1
331776 17.8236062 0.249712263 0.0207836212 324
663552 17.7551553 0.254178194 0.0204538416 648
995328 17.782343 0.251147911 0.020424959 972
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6415933 0 0 1
331776 55.5127532 0 0 324
663552 55.4339511 0 0 648
995328 55.3565445 0 0 972
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.8573772 0.083133758 0.0191603027 1
331776 18.6520591 0.086712765 0.0246092243 324
663552 18.6079494 0.0882015059 0.0256681358 648
995328 18.5963429 0.0880431587 0.0249908286 972
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 63.166825 0 0 1
331776 57.4858379 0 0 324
663552 57.2631868 0 0 648
995328 57.2668705 0 0 972
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.2385523 0.131840257 0.0297515809 1
331776 17.2320546 0.314474328 0.0184024427 324
663552 17.0837649 0.346502254 0.0178619264 648
995328 17.1008448 0.355643751 0.0178087527 972
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.5852114 0 0 1
331776 55.553517 0 0 324
663552 55.5593281 0 0 648
995328 55.5665874 0 0 972
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.6083394 0.0905931058 0.0517451171 1
331776 18.3870546 0.124353378 0.0327219989 324
663552 18.3682273 0.132528557 0.0298388241 648
995328 18.3601139 0.135350818 0.0287877341 972
EOD
set title "Quantization SQNR over training: budget=1.6, recipe=mxfp4\nmean over tensors and seeds, per GEMM operand"
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
