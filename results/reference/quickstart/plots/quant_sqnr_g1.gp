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
1024 55.5818014 0 0 1
165888 55.5802717 0 0 162
331776 55.580039 0 0 324
497664 55.5721273 0 0 486
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.578384 0.113630431 0.0219403827 1
165888 18.3859153 0.14942982 0.0240481391 162
331776 18.3478062 0.149589493 0.0232733772 324
497664 18.3522818 0.148886907 0.0229194883 486
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6637459 0 0 1
165888 55.5569811 0 0 162
331776 55.4217529 0 0 324
497664 55.542057 0 0 486
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.8588239 0.0829533975 0.019175696 1
165888 18.7623125 0.0817711235 0.0258852036 162
331776 18.7418266 0.0822075738 0.0245706871 324
497664 18.7310949 0.0817653114 0.0246239718 486
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 63.2515879 0 0 1
165888 57.4714079 0 0 162
331776 57.483572 0 0 324
497664 57.3661518 0 0 486
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.2681309 0.145388739 0.0232390904 1
165888 17.8872145 0.236306871 0.0212534496 162
331776 17.8451956 0.240994575 0.0208511807 324
497664 17.8489852 0.237005764 0.0209996359 486
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6637459 0 0 1
165888 55.5569811 0 0 162
331776 55.4217529 0 0 324
497664 55.542057 0 0 486
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.8592997 0.0831038867 0.0191543822 1
165888 18.7059455 0.0846715853 0.0250823813 162
331776 18.6805674 0.0847213184 0.0245882872 324
497664 18.6790858 0.0842743726 0.0251033722 486
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 63.2515879 0 0 1
165888 57.4714079 0 0 162
331776 57.483572 0 0 324
497664 57.3661518 0 0 486
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.2362506 0.131783561 0.0295052151 1
165888 17.3435333 0.292418161 0.0188531573 162
331776 17.2535121 0.308844279 0.0184426686 324
497664 17.1893045 0.324454565 0.0182164056 486
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.5818014 0 0 1
165888 55.5802717 0 0 162
331776 55.580039 0 0 324
497664 55.5721273 0 0 486
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.608832 0.0905759294 0.0513041512 1
165888 18.4985299 0.111582725 0.0370424211 162
331776 18.423491 0.120485245 0.0348676045 324
497664 18.4474101 0.12366036 0.0329485091 486
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
