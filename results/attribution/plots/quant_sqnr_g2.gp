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
1024 55.5697384 0 0 1
165888 55.608242 0 0 162
331776 55.6025667 0 0 324
497664 55.6296139 0 0 486
663552 55.6045876 0 0 648
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.8461411 0.103953225 0.0182037505 1
165888 19.8515581 0.137328587 0.0173238571 162
331776 19.8787117 0.143541609 0.0178437005 324
497664 19.8183718 0.14261226 0.0173601574 486
663552 19.7914639 0.140555352 0.0174147439 648
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6637459 0 0 1
165888 55.593235 0 0 162
331776 55.47192 0 0 324
497664 55.8751869 0 0 486
663552 55.9357576 0 0 648
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.8492174 0.077239667 0.0178879834 1
165888 19.8302289 0.0761169757 0.0177980453 162
331776 19.8089817 0.0769664619 0.0179113964 324
497664 19.7970825 0.0763075086 0.0176748447 486
663552 19.7759369 0.0763075086 0.0177978838 648
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 63.2385674 0 0 1
165888 57.4668932 0 0 162
331776 57.350194 0 0 324
497664 57.3177929 0 0 486
663552 57.4303541 0 0 648
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.7598983 0.137136126 0.0174389491 1
165888 19.7046391 0.222191932 0.017209492 162
331776 19.7414001 0.237344152 0.0172015599 324
497664 19.7313457 0.234620836 0.0172221471 486
663552 19.704978 0.230771731 0.0172014237 648
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6637459 0 0 1
165888 55.593235 0 0 162
331776 55.47192 0 0 324
497664 55.8751869 0 0 486
663552 55.9357576 0 0 648
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.8550118 0.0773166874 0.0178259794 1
165888 19.8529806 0.0792856367 0.0175054641 162
331776 19.8484161 0.0805040794 0.0177707571 324
497664 19.8455413 0.0799445905 0.0177066541 486
663552 19.8418768 0.0795422101 0.0176950283 648
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 63.2385674 0 0 1
165888 57.4668932 0 0 162
331776 57.350194 0 0 324
497664 57.3177929 0 0 486
663552 57.4303541 0 0 648
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.7179067 0.124493084 0.0184509035 1
165888 19.6811827 0.283826478 0.0169048309 162
331776 19.6578697 0.306231485 0.0169124755 324
497664 19.7017045 0.317381086 0.0168787791 486
663552 19.6263317 0.317806441 0.0168300962 648
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.5697384 0 0 1
165888 55.608242 0 0 162
331776 55.6025667 0 0 324
497664 55.6296139 0 0 486
663552 55.6045876 0 0 648
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 20.0741365 0.0844613636 0.0263809628 1
165888 20.008087 0.105950688 0.0230418916 162
331776 19.9772739 0.117228629 0.0218867498 324
497664 19.9291833 0.11976398 0.0208668785 486
663552 19.9316019 0.118049183 0.021471281 648
EOD
set title "Quantization SQNR over training: arm=+fp4+e4m3_scales\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [bf16 rne]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop x [fp4_e2m1/32 e4m3 1d rne]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'fprop w [bf16 rne]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'fprop w [fp4_e2m1/32 e4m3 1d rne]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'dgrad dy [bf16 rne]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'dgrad dy [fp4_e2m1/32 e4m3 1d rne]', \
     $q6 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#F0E442' title 'dgrad w [bf16 rne]', \
     $q7 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#882255' title 'dgrad w [fp4_e2m1/32 e4m3 1d rne]', \
     $q8 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#44AA99' title 'wgrad dy [bf16 rne]', \
     $q9 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#999933' title 'wgrad dy [fp4_e2m1/32 e4m3 1d rne]', \
     $q10 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#0072B2' title 'wgrad x [bf16 rne]', \
     $q11 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#D55E00' title 'wgrad x [fp4_e2m1/32 e4m3 1d rne]'
unset output
