# fp4lab plot 'quant_sqnr_g7' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g7.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g7.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g7.' . fmt
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
1024 20.4971337 0.0902558889 0.034001335 1
165888 20.6633238 0.113071411 0.033748854 162
331776 20.7544925 0.116169854 0.0336048945 324
497664 20.7280117 0.115321644 0.0329116792 486
663552 20.6903045 0.113907057 0.0338560437 648
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.064173 0.100736103 0.00236357835 1
165888 18.9097451 0.111160197 0.00242041532 162
331776 18.8701857 0.113733847 0.00239797119 324
497664 18.8484973 0.112455176 0.0023529214 486
663552 18.8411768 0.112136276 0.00234032686 648
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 17.3193153 0.112155899 0.0339798549 1
165888 17.359346 0.155665882 0.0337064078 162
331776 17.3788692 0.15953509 0.033824406 324
497664 17.3820848 0.156565107 0.0334650219 486
663552 17.3795156 0.153909138 0.0336829746 648
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.064173 0.100736103 0.00236357835 1
165888 18.9097451 0.111160197 0.00242041532 162
331776 18.8701857 0.113733847 0.00239797119 324
497664 18.8484973 0.112455176 0.0023529214 486
663552 18.8411768 0.112136276 0.00234032686 648
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 17.174347 0.0724093424 0.0352881599 1
165888 16.9694735 0.057638017 0.0355991636 162
331776 16.9823528 0.0565042043 0.0356997991 324
497664 16.9600927 0.0558548884 0.0357574735 486
663552 16.9611066 0.0558269744 0.035703977 648
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 20.7637114 0.0858306584 0.0356110617 1
165888 20.4047436 0.0665013298 0.0350098837 162
331776 20.4040196 0.0652986407 0.0351388265 324
497664 20.3676332 0.0651108879 0.0350008618 486
663552 20.3798013 0.0653877861 0.034867529 648
EOD
set title "Quantization SQNR over training: variant=fp8_dpa\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [fp4_e2m1/16 e4m3 1d rne bf16-in]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [fp4_e2m1/16 e4m3 2d rne bf16-in]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr bf16-in]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne bf16-in]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr rht16 bf16-in]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne rht16 bf16-in]'
unset output
