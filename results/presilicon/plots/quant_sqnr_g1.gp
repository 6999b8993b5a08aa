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
1024 20.5013301 0.0902649559 0.0340877712 1
165888 20.6794201 0.112270022 0.0337784931 162
331776 20.7624301 0.115028744 0.0343696201 324
497664 20.7661737 0.115421084 0.0339742387 486
663552 20.7168142 0.113858177 0.0341493817 648
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.064173 0.100736103 0.00236357835 1
165888 18.9354056 0.109922217 0.00243349428 162
331776 18.857758 0.113689281 0.00236922977 324
497664 18.8486151 0.112911164 0.00237972523 486
663552 18.8421841 0.112141766 0.00242671261 648
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 17.3085026 0.112193713 0.0338017296 1
165888 17.3263357 0.151548552 0.0336643249 162
331776 17.3626697 0.156260703 0.033890255 324
497664 17.375616 0.156254708 0.0337564527 486
663552 17.3685452 0.154166313 0.0338339125 648
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.064173 0.100736103 0.00236357835 1
165888 18.9354056 0.109922217 0.00243349428 162
331776 18.857758 0.113689281 0.00236922977 324
497664 18.8486151 0.112911164 0.00237972523 486
663552 18.8421841 0.112141766 0.00242671261 648
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 17.1711586 0.0725706042 0.0352530706 1
165888 17.0060072 0.0581109938 0.0353725372 162
331776 16.9549924 0.056602251 0.0359298311 324
497664 16.9302031 0.0555998786 0.0358147697 486
663552 16.9635141 0.0559982877 0.0359342061 648
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 20.7639461 0.086161054 0.0355926092 1
165888 20.4022973 0.0665081261 0.0349400232 162
331776 20.3879515 0.0656317906 0.0349380555 324
497664 20.371794 0.0649329141 0.0351837855 486
663552 20.3831534 0.0652583442 0.0347477141 648
EOD
set title "Quantization SQNR over training: variant=ue5m3\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [fp4_e2m1/16 ue5m3 1d rne bf16-in]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [fp4_e2m1/16 ue5m3 2d rne bf16-in]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [fp4_e2m1/16 ue5m3 1d sr bf16-in]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [fp4_e2m1/16 ue5m3 2d rne bf16-in]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [fp4_e2m1/16 ue5m3 1d sr rht16 bf16-in]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [fp4_e2m1/16 ue5m3 1d rne rht16 bf16-in]'
unset output
