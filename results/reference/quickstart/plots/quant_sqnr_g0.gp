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
1024 55.5922286 0 0 1
331776 55.6262321 0 0 324
663552 55.5879428 0 0 648
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 20.5005795 0.0902174895 0.0347296196 1
331776 20.7478212 0.115591453 0.0340458501 324
663552 20.6945984 0.11444777 0.033829482 648
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6415933 0 0 1
331776 55.5786076 0 0 324
663552 55.7677784 0 0 648
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.0666944 0.100871307 0.00237240531 1
331776 18.8547602 0.113956082 0.00237541939 324
663552 18.8463108 0.112106511 0.00242429058 648
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 63.1524824 0 0 1
331776 57.3846334 0 0 324
663552 57.3556925 0 0 648
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 17.3083867 0.112588499 0.0341420552 1
331776 17.3887748 0.158781062 0.0339547111 324
663552 17.3837027 0.1545778 0.0339587883 648
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6415933 0 0 1
331776 55.5786076 0 0 324
663552 55.7677784 0 0 648
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.0666944 0.100871307 0.00237240531 1
331776 18.8547602 0.113956082 0.00237541939 324
663552 18.8463108 0.112106511 0.00242429058 648
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 63.1524824 0 0 1
331776 57.3846334 0 0 324
663552 57.3556925 0 0 648
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 17.1753148 0.0723361062 0.0352820947 1
331776 16.9767622 0.0567595772 0.0355476702 324
663552 16.9528766 0.0559309299 0.0356964636 648
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.5922286 0 0 1
331776 55.6262321 0 0 324
663552 55.5879428 0 0 648
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 20.7689566 0.0865846765 0.0356578423 1
331776 20.3966151 0.0655803174 0.035127872 324
663552 20.3767199 0.065231374 0.0347808354 648
EOD
set title "Quantization SQNR over training: budget=1.0, recipe=nvfp4\nmean over tensors and seeds, per GEMM operand"
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
