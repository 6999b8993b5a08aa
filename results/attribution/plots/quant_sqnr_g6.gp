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
1024 55.5873871 0 0 1
165888 55.5813913 0 0 162
331776 55.6430025 0 0 324
497664 55.6179085 0 0 486
663552 55.5879822 0 0 648
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 20.502659 0.0902566306 0.0349743252 1
165888 20.6665866 0.114465926 0.034542659 162
331776 20.7197047 0.115520083 0.0341725423 324
497664 20.6943673 0.115963088 0.0345653048 486
663552 20.7033139 0.115490807 0.0339913291 648
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6637459 0 0 1
165888 55.590107 0 0 162
331776 55.5572691 0 0 324
497664 55.7102184 0 0 486
663552 55.8334599 0 0 648
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.0634915 0.100732874 0.00235728107 1
165888 18.9106115 0.111566453 0.00232353412 162
331776 18.8554253 0.113957804 0.00236325542 324
497664 18.8369375 0.113464355 0.0023855381 486
663552 18.8399653 0.112326163 0.00241460246 648
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 63.2680216 0 0 1
165888 57.4714441 0 0 162
331776 57.3293648 0 0 324
497664 57.2612991 0 0 486
663552 57.3012466 0 0 648
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 17.3180329 0.112153992 0.0341252979 1
165888 17.3124143 0.15391486 0.0340049984 162
331776 17.4125082 0.159368016 0.0339086017 324
497664 17.3916831 0.157332587 0.0339103124 486
663552 17.3794372 0.154881508 0.033923906 648
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6637459 0 0 1
165888 55.590107 0 0 162
331776 55.5572691 0 0 324
497664 55.7102184 0 0 486
663552 55.8334599 0 0 648
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.0634915 0.100732874 0.00235728107 1
165888 18.9106115 0.111566453 0.00232353412 162
331776 18.8554253 0.113957804 0.00236325542 324
497664 18.8369375 0.113464355 0.0023855381 486
663552 18.8399653 0.112326163 0.00241460246 648
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 63.2680216 0 0 1
165888 57.4714441 0 0 162
331776 57.3293648 0 0 324
497664 57.2612991 0 0 486
663552 57.3012466 0 0 648
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 17.1742524 0.0725682881 0.0353201458 1
165888 16.9694756 0.0578722728 0.0352212513 162
331776 16.9821147 0.0569175844 0.035530711 324
497664 16.9576031 0.0560254446 0.0357765774 486
663552 16.9541482 0.0560661196 0.035592049 648
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.5873871 0 0 1
165888 55.5813913 0 0 162
331776 55.6430025 0 0 324
497664 55.6179085 0 0 486
663552 55.5879822 0 0 648
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 20.7695693 0.0864752817 0.0354862819 1
165888 20.4120896 0.066386964 0.0346776263 162
331776 20.3978028 0.065446384 0.0351434586 324
497664 20.3756062 0.0649721051 0.0349347101 486
663552 20.3792175 0.0652487017 0.0348441867 648
EOD
set title "Quantization SQNR over training: arm=+fp4+e4m3_scales+block16+weights_2d+rht+sr\nmean over tensors and seeds, per GEMM operand"
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
