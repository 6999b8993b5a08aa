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
1024 55.5852114 0 0 1
331776 55.5986487 0 0 324
663552 55.5716642 0 0 648
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.5814041 0.114250728 0.0212234517 1
331776 18.3414278 0.152125737 0.0221735939 324
663552 18.331328 0.150465446 0.0207183677 648
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6415933 0 0 1
331776 55.5117245 0 0 324
663552 55.7794088 0 0 648
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.8570491 0.0830976967 0.0191559968 1
331776 18.7104418 0.082742681 0.0249913668 324
663552 18.6660402 0.0820570848 0.0261830055 648
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 63.166825 0 0 1
331776 57.4828962 0 0 324
663552 57.2655741 0 0 648
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.2709252 0.145639813 0.0235300518 1
331776 17.8032183 0.251241341 0.0208373802 324
663552 17.8054644 0.241754774 0.02079669 648
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6415933 0 0 1
331776 55.5117245 0 0 324
663552 55.7794088 0 0 648
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.8573772 0.083133758 0.0191603027 1
331776 18.6441152 0.0860009035 0.0247996497 324
663552 18.6110135 0.0854741926 0.0261290749 648
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 63.166825 0 0 1
331776 57.4828962 0 0 324
663552 57.2655741 0 0 648
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.2385523 0.131840257 0.0297515809 1
331776 17.2466231 0.316927935 0.0184604302 324
663552 17.1568481 0.330676517 0.0180975394 648
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.5852114 0 0 1
331776 55.5986487 0 0 324
663552 55.5716642 0 0 648
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.6083394 0.0905931058 0.0517451171 1
331776 18.4007619 0.121498905 0.034010882 324
663552 18.4036818 0.126368619 0.0320634794 648
EOD
set title "Quantization SQNR over training: budget=1.0, recipe=mxfp4\nmean over tensors and seeds, per GEMM operand"
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
